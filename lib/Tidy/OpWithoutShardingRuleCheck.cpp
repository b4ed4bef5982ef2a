//===--- OpWithoutShardingRuleCheck.cpp - dtensor-op-without-sharding-rule ===//

#include "OpWithoutShardingRuleCheck.h"
#include "CalleeNotes.h"
#include "DiagnosticMessages.h"
#include "Fixes/EditableSource.h"
#include "Fixes/FindingFix.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Lex/Lexer.h"

using namespace clang;
using namespace meshguard::analysis;

namespace meshguard {
namespace tidy {

void OpWithoutShardingRuleCheck::analyse(const FunctionDecl &FD,
                                         ASTContext &Ctx) {
  const PlacementScan &Scan = engine(Ctx).placements(FD);
  if (!finished(FD, Scan.Result, "ops without a sharding rule"))
    return;
  for (const UnruledOp &Op : Scan.UnruledOps)
    report(Op, Ctx);
}

/// `meshguard::redistribute(x, {meshguard::Replicate{}, ...})` around each
/// operand that may be sharded or Partial: the op then runs on the full
/// tensors, as the runtime runs any op on all-Replicate operands. Only when
/// the mesh's number of dims is known.
static std::vector<FixItHint> replicateFirst(const UnruledOp &Op,
                                             ASTContext &Ctx) {
  if (Op.MeshDims == 0)
    return {};
  std::string Placements;
  for (unsigned I = 0; I < Op.MeshDims; ++I)
    Placements += (I ? ", " : "") + std::string("meshguard::Replicate{}");
  const SourceManager &SM = Ctx.getSourceManager();
  std::vector<FixItHint> Fixes;
  for (const Expr *Operand : Op.Operands) {
    CharSourceRange Range = Lexer::makeFileCharRange(
        CharSourceRange::getTokenRange(Operand->getSourceRange()), SM,
        Ctx.getLangOpts());
    if (Range.isInvalid() ||
        !isEditable({Operand->getBeginLoc(), Operand->getEndLoc()}, SM))
      return {};
    StringRef Text = Lexer::getSourceText(Range, SM, Ctx.getLangOpts());
    Fixes.push_back(FixItHint::CreateReplacement(
        Range,
        ("meshguard::redistribute(" + Text + ", {" + Placements + "})").str()));
  }
  return Fixes;
}

void OpWithoutShardingRuleCheck::report(const UnruledOp &Op, ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  SourceLocation Loc = SM.getExpansionLoc(Op.Call->getExprLoc());
  if (!firstReportAt(Loc))
    return;
  FindingFix Fix;
  for (const FixItHint &Hint : replicateFirst(Op, Ctx))
    Fix.add(Hint);
  Fix.Title = "redistribute the operand to Replicate first";
  FindingReporter Findings(*this, areDiagsSelfContained());
  Findings.warning(Loc, msg::OpWithoutShardingRule, Fix)
      << Op.Name << Op.MayPartial;
  if (Op.PlacedAt)
    noteInCallee(*this, Op.PlacedAt.Here, Op.PlacedAt.Elsewhere, *Op.Call,
                 msg::OpOperandPlacedNote, Ctx);
  Findings.fixNote(Loc, Fix);
}

} // namespace tidy
} // namespace meshguard
