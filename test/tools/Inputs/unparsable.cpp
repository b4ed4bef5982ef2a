// Does not parse.
void broken( {
