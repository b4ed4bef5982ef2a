//===--- ProcessGroupMisuseCheck.cpp - dtensor-process-group-misuse -------===//

#include "ProcessGroupMisuseCheck.h"
#include "DiagnosticText.h"
#include "clang/AST/ASTContext.h"
#include "clang/Lex/Lexer.h"

using namespace clang;
using namespace meshguard::analysis;

namespace meshguard {
namespace tidy {

std::vector<StringRef> ProcessGroupMisuseCheck::interestingCallees() const {
  return Index->processGroupCollectiveNames();
}

void ProcessGroupMisuseCheck::analyse(const FunctionDecl &FD, ASTContext &Ctx) {
  ProcessGroupScan Scan =
      scanProcessGroupCollectives(FD, Ctx, *Index, Analysis.Limits);
  if (!finished(FD, Scan.Result, "DTensors passed to process-group collectives"))
    return;
  for (const ProcessGroupSite &Site : Scan.Sites)
    report(Site, Ctx);
}

/// `meshguard::to_local(` ... `)` around \p E, unless it is in a macro or a
/// system header.
static bool wrapInToLocal(const Expr &E, ASTContext &Ctx,
                          llvm::SmallVectorImpl<FixItHint> &Fixes) {
  const SourceManager &SM = Ctx.getSourceManager();
  SourceRange Range = E.getSourceRange();
  if (Range.getBegin().isInvalid() || Range.getBegin().isMacroID() ||
      Range.getEnd().isMacroID() || SM.isInSystemHeader(Range.getBegin()))
    return false;
  SourceLocation After =
      Lexer::getLocForEndOfToken(Range.getEnd(), 0, SM, Ctx.getLangOpts());
  if (After.isInvalid())
    return false;
  Fixes.push_back(
      FixItHint::CreateInsertion(Range.getBegin(), "meshguard::to_local("));
  Fixes.push_back(FixItHint::CreateInsertion(After, ")"));
  return true;
}

void ProcessGroupMisuseCheck::report(const ProcessGroupSite &Site,
                                     ASTContext &Ctx) {
  const CallExpr &Call = *Site.Call;
  const OperandFact &First = Site.DTensorOperands.front();
  std::string Name = operandName(*First.E, Ctx);
  llvm::SmallVector<FixItHint, 4> Fixes;
  if (Site.Surely)
    for (const Expr *E : Site.WrapInToLocal)
      if (!wrapInToLocal(*E, Ctx, Fixes)) {
        Fixes.clear();
        break;
      }
  {
    auto Warning =
        Site.Surely
            ? diag(Call.getBeginLoc(),
                   "raw process-group collective '%0' is given a DTensor "
                   "('%1'): c10d collectives work on local tensors; pass "
                   "meshguard::to_local(...) of it")
            : diag(Call.getBeginLoc(),
                   "raw process-group collective '%0' may be given a DTensor "
                   "('%1') on some path: c10d collectives work on local "
                   "tensors");
    Warning << Site.Entry->OpName << Name;
    for (const FixItHint &Fix : Fixes)
      Warning << Fix;
  }
  for (const OperandFact &Op : Site.DTensorOperands) {
    if (Op.IsContainer) {
      diag(Op.E->getBeginLoc(), "'%0' holds a DTensor here", DiagnosticIDs::Note)
          << operandName(*Op.E, Ctx);
      continue;
    }
    if (Op.Origin)
      diag(Op.Origin->getBeginLoc(), "'%0' is a DTensor: it comes from %1 here",
           DiagnosticIDs::Note)
          << operandName(*Op.E, Ctx) << originName(*Op.Origin);
  }
  for (const MeshCollectiveEntry &Mesh : Index->model().MeshCollectives)
    if (Mesh.OpName == Site.Entry->OpName) {
      diag(Call.getBeginLoc(),
           "to keep the tensors distributed, call the mesh-aware collective "
           "'%0' instead",
           DiagnosticIDs::Note)
          << Mesh.Function;
      break;
    }
}

} // namespace tidy
} // namespace meshguard
