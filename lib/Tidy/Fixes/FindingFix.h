//===--- FindingFix.h - A finding's fix, as clang-tidy and editors take it
//-===//
//
// clang-tidy applies the fix-its of a warning (--fix) and leaves a note's
// alone (unless --fix-notes). clangd turns the fix-its of a warning into a
// quick fix titled by the whole warning (several edits) or by a synthetic
// "insert '...'" (one edit), and the fix-its of a note into a quick fix
// titled by the note. Editors show a warning's message; many never show its
// notes (LSP related information). So a finding's fix goes on the warning
// for clang-tidy, and, where diagnostics are self-contained (clangd and other
// editor front ends ask for that), on a note that says what it does, with the
// same words in the warning's message.
//
//===----------------------------------------------------------------------===//

#ifndef MESHGUARD_TIDY_FINDINGFIX_H
#define MESHGUARD_TIDY_FINDINGFIX_H

#include "clang-tidy/ClangTidyCheck.h"
#include "llvm/ADT/SmallVector.h"
#include <string>

namespace meshguard {
namespace tidy {

/// A finding's fix-its and what they do, in a few words, as a quick fix is
/// titled ("call 'meshguard::guarded::broadcast_' with the mesh 'mesh'").
struct FindingFix {
  llvm::SmallVector<clang::FixItHint, 4> Hints;
  std::string Title;

  bool empty() const { return Hints.empty(); }
  void add(const clang::FixItHint &Hint) { Hints.push_back(Hint); }
};

/// Emits findings with their fix for the tool that shows them.
class FindingReporter {
public:
  /// \p InEditor: the check's diagnostics are self-contained
  /// (ClangTidyCheck::areDiagsSelfContained()).
  FindingReporter(clang::tidy::ClangTidyCheck &Check, bool InEditor)
      : Check(Check), InEditor(InEditor) {}

  /// The warning at \p Loc: \p Fix's fix-its outside an editor; in one, its
  /// message ends with "; fix: <title>" instead.
  clang::DiagnosticBuilder warning(clang::SourceLocation Loc,
                                   llvm::StringRef Message,
                                   const FindingFix &Fix);

  /// In an editor, the note that carries \p Fix's fix-its, titled by what
  /// they do (its quick fix); nothing elsewhere. Emit it once the warning
  /// is (its builder gone).
  void fixNote(clang::SourceLocation Loc, const FindingFix &Fix);

private:
  clang::tidy::ClangTidyCheck &Check;
  bool InEditor;
};

} // namespace tidy
} // namespace meshguard

#endif // MESHGUARD_TIDY_FINDINGFIX_H
