//===--- CalleeNotes.cpp - The note inside a callee, here or elsewhere ----===//

#include "CalleeNotes.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/Support/Path.h"

using namespace clang;

namespace meshguard {
namespace tidy {

/// \p Text with '%' doubled (it becomes part of a diagnostic format).
static std::string escaped(llvm::StringRef Text) {
  std::string Out;
  for (char C : Text) {
    Out += C;
    if (C == '%')
      Out += C;
  }
  return Out;
}

/// The place \p At in this TU's SourceManager (the file entered once more
/// if the TU did not include it); invalid when the file cannot be read.
static SourceLocation mapPlace(const analysis::ExternalSite &At,
                               ASTContext &Ctx) {
  SourceManager &SM = Ctx.getSourceManager();
  OptionalFileEntryRef File =
      SM.getFileManager().getOptionalFileRef(At.File, /*OpenFile=*/true);
  if (!File)
    return {};
  FileID FID = SM.translateFile(*File);
  if (FID.isInvalid())
    FID = SM.createFileID(*File, SourceLocation(), SrcMgr::C_User);
  if (FID.isInvalid())
    return {};
  return SM.translateLineCol(FID, At.Line, At.Column);
}

DiagnosticBuilder noteInCallee(clang::tidy::ClangTidyCheck &Check,
                               const Expr *Inner,
                               const analysis::ExternalSite *Elsewhere,
                               const Expr &Call, llvm::StringRef Message,
                               ASTContext &Ctx) {
  if (Inner || !Elsewhere)
    return Check.diag(Inner ? Inner->getBeginLoc() : Call.getBeginLoc(),
                      Message, DiagnosticIDs::Note);
  SourceLocation Loc = mapPlace(*Elsewhere, Ctx);
  // A place two files away is in a function the helper calls, whose name
  // the database does not keep.
  std::string Helper = "'" + escaped(Elsewhere->Function) + "'";
  std::string Text =
      "inside " +
      (Elsewhere->InCallee ? "a function " + Helper + " calls" : Helper) +
      " (" + escaped(llvm::sys::path::filename(Elsewhere->File)) + ":" +
      std::to_string(Elsewhere->Line) + "): " + Message.str();
  return Check.diag(Loc.isValid() ? Loc : Call.getBeginLoc(), Text,
                    DiagnosticIDs::Note);
}

} // namespace tidy
} // namespace meshguard
