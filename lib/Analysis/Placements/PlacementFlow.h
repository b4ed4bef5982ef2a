//===--- PlacementFlow.h - Placement facts over one CFG ---------*- C++ -*-===//
//
// Runs PlacementTransfer to a fixpoint over a function's CFG in reverse
// post-order, with a union at joins (a may-analysis, as RankFlow), and
// replays each block to give the facts before each statement.
//
//===----------------------------------------------------------------------===//

#ifndef MESHGUARD_LIB_ANALYSIS_PLACEMENTFLOW_H
#define MESHGUARD_LIB_ANALYSIS_PLACEMENTFLOW_H

#include "Placements/PlacementFacts.h"
#include "meshguard/Analysis/Provenance/FunctionAnalysis.h"
#include "clang/Analysis/Analyses/PostOrderCFGView.h"
#include "clang/Analysis/CFG.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include <vector>

namespace meshguard {
namespace analysis {

/// The facts before each CFG element, after a fixpoint.
class PlacementFlow {
public:
  PlacementFlow(const clang::CFG &Cfg, const PlacementTransfer &Transfer,
                PlacementVars Entry)
      : Cfg(Cfg), Transfer(Transfer), Entry(std::move(Entry)),
        In(Cfg.getNumBlockIDs()), Out(Cfg.getNumBlockIDs()),
        Done(Cfg.getNumBlockIDs(), false) {}

  bool solve(const AnalysisLimits &Limits) {
    clang::PostOrderCFGView Order(&Cfg);
    std::int32_t Visits = 0;
    for (bool Changed = true; Changed;) {
      Changed = false;
      for (const clang::CFGBlock *B : Order) {
        if (++Visits > Limits.MaxBlockVisits)
          return false;
        unsigned ID = B->getBlockID();
        PlacementVars Vars = B == &Cfg.getEntry() ? Entry : PlacementVars();
        for (const clang::CFGBlock *P : B->preds())
          if (P && Done[P->getBlockID()])
            for (const auto &[V, S] : Out[P->getBlockID()]) {
              auto [It, New] = Vars.try_emplace(V, S);
              if (!New)
                It->second.join(S);
            }
        In[ID] = Vars;
        for (const clang::CFGElement &E : *B)
          if (std::optional<clang::CFGStmt> S = E.getAs<clang::CFGStmt>())
            Transfer.transfer(S->getStmt(), Vars);
        if (!Done[ID] || Vars != Out[ID]) {
          Out[ID] = std::move(Vars);
          Done[ID] = true;
          Changed = true;
        }
      }
    }
    return true;
  }

  /// Calls \p Visit with each statement of the CFG and the facts before it.
  void
  visit(llvm::function_ref<void(const clang::Stmt *, const PlacementVars &)>
            Visit) const {
    for (const clang::CFGBlock *B : Cfg) {
      if (!Done[B->getBlockID()])
        continue;
      PlacementVars Vars = In[B->getBlockID()];
      for (const clang::CFGElement &E : *B)
        if (std::optional<clang::CFGStmt> S = E.getAs<clang::CFGStmt>()) {
          Visit(S->getStmt(), Vars);
          Transfer.transfer(S->getStmt(), Vars);
        }
    }
  }

private:
  const clang::CFG &Cfg;
  const PlacementTransfer &Transfer;
  PlacementVars Entry;
  std::vector<PlacementVars> In, Out;
  std::vector<bool> Done;
};

} // namespace analysis
} // namespace meshguard

#endif // MESHGUARD_LIB_ANALYSIS_PLACEMENTFLOW_H
