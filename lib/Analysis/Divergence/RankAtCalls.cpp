//===--- RankAtCalls.cpp - Rank dependence around chosen calls ------------===//

#include "meshguard/Analysis/Divergence/RankAtCalls.h"
#include "Divergence/RankFlow.h"

using namespace clang;

namespace meshguard {
namespace analysis {

RankAtCallsScan
rankAtCalls(const FunctionDecl &FD,
            const llvm::DenseMap<const CallExpr *, unsigned> &Argument,
            DivergenceMemo &Memo, const AnalysisLimits &Limits) {
  RankAtCallsScan Scan;
  if (Argument.empty())
    return Scan;
  std::unique_ptr<CFG> Cfg =
      buildAdmittedCFG(FD, Memo.context(), Limits, Scan.Result.Outcome);
  if (!Cfg)
    return Scan;
  // Parameters start uniform, as for the collectives: a rank-dependent
  // argument is its caller's.
  RankFlow Flow(FD, *Cfg, Memo.rankFacts(), {});
  if (!Flow.solve(Limits)) {
    Scan.Result.Outcome = AnalysisOutcome::BlockVisitLimit;
    return Scan;
  }
  forEachCall(*Cfg, [&](CFGBlock *B, const CallExpr &Call) {
    auto It = Argument.find(&Call);
    if (It == Argument.end() || Scan.Calls.count(&Call))
      return;
    CallRankFacts &Facts = Scan.Calls[&Call];
    for (CFGBlock *Dep : Flow.controllingBlocks(B))
      if (const Expr *Origin = Flow.conditionOrigin(Dep)) {
        Facts.ControlOrigin = Origin;
        break;
      }
    if (It->second < Call.getNumArgs())
      Facts.ArgumentOrigin =
          Flow.originBefore(Call.getArg(It->second), B, &Call);
  });
  return Scan;
}

} // namespace analysis
} // namespace meshguard
