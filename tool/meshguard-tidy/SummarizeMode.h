//===- SummarizeMode.h - meshguard-tidy --summarize ------------*- C++ -*-===//
//
// The summary pass of the whole-program analysis (SummarizeMode.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef MESHGUARD_TOOL_SUMMARIZEMODE_H
#define MESHGUARD_TOOL_SUMMARIZEMODE_H

namespace meshguard {

/// True when the command line asks for the summary pass (--summarize).
bool isSummarizeMode(int Argc, const char **Argv);
/// Runs the summary pass; the process's exit status.
int summarizeMain(int Argc, const char **Argv);

} // namespace meshguard

#endif // MESHGUARD_TOOL_SUMMARIZEMODE_H
