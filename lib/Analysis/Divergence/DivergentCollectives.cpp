//===--- DivergentCollectives.cpp - Collectives not every rank reaches ----===//
//
// Rank dependence (RankDependence.h) runs to a fixpoint over the function's
// CFG; then every block holding a collective is asked, through Clang's
// control-dependence calculator (post-dominance frontiers), which branch
// blocks decide whether it runs. Control dependence is followed
// transitively: a collective in a loop body after `if (rank == 0) break;`
// depends on the loop condition, which depends on that `if`.
//
//===----------------------------------------------------------------------===//

#include "meshguard/Analysis/Divergence/DivergentCollectives.h"
#include "Divergence/BranchSides.h"
#include "Divergence/MeshGroups.h"
#include "Divergence/RankFlow.h"
#include "meshguard/Analysis/Summaries/SummaryDatabase.h"
#include "clang/AST/ASTLambda.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Analysis/Analyses/Dominators.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace clang;

namespace meshguard {
namespace analysis {

namespace {

std::string joined(const std::vector<std::string> &Names) {
  if (Names.empty())
    return "none";
  std::string Out;
  for (const std::string &N : Names)
    Out += (Out.empty() ? "" : ", ") + N;
  return Out;
}

/// The sides a message names: the side that holds \p Call (an if's then or
/// else, a switch's arm) and the other side, or for a switch the first arm
/// that runs something else.
std::pair<const BranchSide *, const BranchSide *>
compared(const std::vector<BranchSide> &Sides, const CallExpr &Call,
         ASTContext &Ctx) {
  const BranchSide *Here = &Sides.front();
  for (const BranchSide &Side : Sides)
    if (llvm::any_of(Side.Stmts, [&](const Stmt *S) {
          return containsStmt(S, &Call, Ctx);
        }))
      Here = &Side;
  if (Sides.size() == 2)
    return {Here, Here == &Sides[0] ? &Sides[1] : &Sides[0]};
  const BranchSide *Other = nullptr;
  for (const BranchSide &Side : Sides)
    if (&Side != Here &&
        (!Other || (Other->Keys == Here->Keys && Side.Keys != Here->Keys)))
      Other = &Side;
  return {Here, Other};
}

/// A collective of the function, or a call of a helper whose collective a
/// parameter decides.
struct DivergenceSite {
  CFGBlock *Block;
  CollectiveCall Collective;
  llvm::ArrayRef<ParameterControl> Controls;
};

/// Where a collective is divergent: the nearest branch on a rank-dependent
/// value that decides whether it runs (a side, a loop, an early exit),
/// unless every side of it communicates alike. A branch whose sides run
/// different collectives is reported at each collective of each side, where
/// the user looks for it.
std::optional<DivergentCollective> atControllingBranch(const DivergenceSite &S,
                                                       RankFlow &Flow,
                                                       DivergenceMemo &Memo,
                                                       const FunctionDecl &FD) {
  ASTContext &Ctx = Memo.context();
  const CallExpr *Call = S.Collective.Call;
  for (CFGBlock *Dep : Flow.controllingBlocks(S.Block)) {
    const Expr *Origin = Flow.conditionOrigin(Dep);
    if (Origin && sameForEveryMember(Origin, *Call, Ctx))
      Origin = Flow.conditionOriginBesides(Dep, Origin);
    if (!Origin || membersTogether(Dep, *Call, FD, Flow))
      continue;
    const Stmt *Branch =
        branchStatement(Dep->getTerminatorStmt(), *Call, FD, Ctx);
    DivergentCollective D;
    D.Collective = S.Collective;
    D.Branch = Branch;
    D.Condition = dyn_cast_or_null<Expr>(Dep->getTerminatorCondition());
    D.RankOrigin = Origin;
    if (!containsStmt(Branch, Call, Ctx)) {
      D.Shape = DivergenceShape::AfterEarlyExit;
      D.Exit = firstExit(Branch);
    } else if (isLoop(Branch)) {
      D.Shape = DivergenceShape::LoopTripCount;
    } else {
      D.Shape = DivergenceShape::InBranch;
      if (std::optional<std::vector<BranchSide>> Sides =
              branchSides(Branch, Memo)) {
        // Every side communicates alike: every rank makes the same calls.
        if (balanced(*Sides) || complementedNextTo(Branch, Memo))
          continue;
        auto [Here, Other] = compared(*Sides, *Call, Ctx);
        if (Other && !Here->Sequence.empty() && !Other->Sequence.empty()) {
          D.Shape = DivergenceShape::DifferentSequences;
          D.ThenSequence = joined(Here->Sequence);
          D.ElseSequence = joined(Other->Sequence);
          if (D.ThenSequence == D.ElseSequence) {
            // Same names: the groups, loops or order of nested sides differ.
            D.ThenSequence = joined(Here->Keys);
            D.ElseSequence = joined(Other->Keys);
          }
        }
      }
    }
    return D;
  }
  return std::nullopt;
}

/// Every rank calls the helper \p S calls; a rank-dependent argument decides
/// whether one of its collectives runs.
std::optional<DivergentCollective> atDecidingArgument(const DivergenceSite &S,
                                                      RankFlow &Flow) {
  const CallExpr *Call = S.Collective.Call;
  for (const ParameterControl &Control : S.Controls) {
    const Expr *Arg = DivergenceMemo::argumentFor(*Call, Control);
    const Expr *Origin = Arg ? Flow.originBefore(Arg, S.Block, Call) : nullptr;
    if (!Origin)
      continue;
    DivergentCollective D;
    D.Shape = DivergenceShape::RankDependentArgument;
    D.Collective = S.Collective;
    const CollectiveCall &Inside = Control.Collective;
    D.Collective.Inner = Inside.Call;
    D.Collective.InnerName = Inside.Helper ? Inside.InnerName : Inside.Name;
    D.Collective.InnerElsewhere = Inside.Call ? nullptr : Inside.InnerElsewhere;
    D.RankOrigin = Origin;
    D.Argument = Arg;
    const FunctionDecl *Helper = S.Collective.Helper;
    if (const FunctionDecl *Def = Helper->getDefinition())
      Helper = Def;
    D.Param = Helper->getParamDecl(Control.Param);
    D.ParamCondition = Control.Condition;
    return D;
  }
  return std::nullopt;
}

} // namespace

DivergenceScan findDivergentCollectives(const FunctionDecl &FD,
                                        DivergenceMemo &Memo,
                                        const ApiIndex &Index,
                                        const AnalysisLimits &Limits) {
  DivergenceScan Scan;
  ASTContext &Ctx = Memo.context();
  std::unique_ptr<CFG> Cfg =
      buildAdmittedCFG(FD, Ctx, Limits, Scan.Result.Outcome);
  if (!Cfg)
    return Scan;
  // Where the collectives are, and the calls of helpers whose collective
  // a parameter decides; nothing else to do without one.
  std::vector<DivergenceSite> Sites;
  forEachCall(*Cfg, [&](CFGBlock *B, const CallExpr &Call) {
    if (std::optional<CollectiveCall> C = Memo.collective(Call))
      Sites.push_back({B, *C,
                       C->Helper ? Memo.parameterControls(*C->Helper)
                                 : llvm::ArrayRef<ParameterControl>()});
  });
  if (Sites.empty())
    return Scan;
  // Reported in source order (the CFG lists blocks backwards).
  const SourceManager &SM = Ctx.getSourceManager();
  llvm::stable_sort(
      Sites, [&](const DivergenceSite &A, const DivergenceSite &B) {
        return SM.isBeforeInTranslationUnit(A.Collective.Call->getBeginLoc(),
                                            B.Collective.Call->getBeginLoc());
      });

  // Parameters start uniform: a rank-dependent argument is reported at
  // its call.
  RankFlow Flow(FD, *Cfg, Memo.rankFacts(), {});
  if (!Flow.solve(Limits)) {
    Scan.Result.Outcome = AnalysisOutcome::BlockVisitLimit;
    return Scan;
  }

  llvm::DenseSet<const CallExpr *> Reported;
  for (const DivergenceSite &S : Sites) {
    const CallExpr *Call = S.Collective.Call;
    if (Reported.contains(Call))
      continue;
    std::optional<DivergentCollective> D =
        atControllingBranch(S, Flow, Memo, FD);
    if (!D)
      D = atDecidingArgument(S, Flow);
    if (D)
      Reported.insert(Call);
    if (D)
      Scan.Sites.push_back(std::move(*D));
  }
  return Scan;
}

} // namespace analysis
} // namespace meshguard
