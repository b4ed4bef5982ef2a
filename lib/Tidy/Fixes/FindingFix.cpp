//===--- FindingFix.cpp - A finding's fix, as clang-tidy and editors take it =//

#include "FindingFix.h"

using namespace clang;

namespace meshguard {
namespace tidy {

/// \p Text as a diagnostic format string that prints it unchanged.
static std::string literalFormat(StringRef Text) {
  std::string Out;
  for (char C : Text) {
    Out += C;
    if (C == '%')
      Out += '%';
  }
  return Out;
}

DiagnosticBuilder FindingReporter::warning(SourceLocation Loc,
                                           StringRef Message,
                                           const FindingFix &Fix) {
  if (!InEditor || Fix.empty()) {
    DiagnosticBuilder Warning = Check.diag(Loc, Message);
    for (const FixItHint &Hint : Fix.Hints)
      Warning << Hint;
    return Warning;
  }
  return Check.diag(Loc,
                    (Message + "; fix: " + literalFormat(Fix.Title)).str());
}

void FindingReporter::fixNote(SourceLocation Loc, const FindingFix &Fix) {
  if (!InEditor || Fix.empty())
    return;
  DiagnosticBuilder Note =
      Check.diag(Loc, literalFormat(Fix.Title), DiagnosticIDs::Note);
  for (const FixItHint &Hint : Fix.Hints)
    Note << Hint;
}

} // namespace tidy
} // namespace meshguard
