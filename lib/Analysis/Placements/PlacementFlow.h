//===--- PlacementFlow.h - Placement facts over one CFG ---------*- C++ -*-===//
//
// Runs PlacementTransfer to a fixpoint over a function's CFG with the
// lighter flows' one solver (BlockFixpoint.h): a union at joins (a
// may-analysis, as RankFlow), and a replay of each block to give the facts
// before each statement.
//
//===----------------------------------------------------------------------===//

#ifndef MESHGUARD_LIB_ANALYSIS_PLACEMENTFLOW_H
#define MESHGUARD_LIB_ANALYSIS_PLACEMENTFLOW_H

#include "Placements/PlacementFacts.h"
#include "Provenance/BlockFixpoint.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace meshguard {
namespace analysis {

/// The facts before each CFG element, after a fixpoint.
class PlacementFlow {
public:
  using State = PlacementVars;

  PlacementFlow(const clang::CFG &Cfg, const PlacementTransfer &Transfer,
                PlacementVars Entry)
      : Cfg(Cfg), Transfer(Transfer), Entry(std::move(Entry)), Fix(Cfg, *this) {
  }
  PlacementFlow(const PlacementFlow &) = delete; // Its solver refers to it.
  PlacementFlow &operator=(const PlacementFlow &) = delete;

  bool solve(const AnalysisLimits &Limits) { return Fix.solve(Limits); }

  /// Calls \p Visit with each statement of the CFG and the facts before it.
  void
  visit(llvm::function_ref<void(const clang::Stmt *, const PlacementVars &)>
            Visit) const {
    for (const clang::CFGBlock *B : Cfg)
      if (Fix.reached(*B))
        Fix.replay(*B, [&](const clang::Stmt *S, const PlacementVars &Vars) {
          Visit(S, Vars);
          return true;
        });
  }

  // The domain, for BlockFixpoint.
  PlacementVars entryState() const { return Entry; }
  void join(PlacementVars &Into, const PlacementVars &From) const {
    for (const auto &[V, S] : From) {
      auto [It, New] = Into.try_emplace(V, S);
      if (!New)
        It->second.join(S);
    }
  }
  void enterBlock(const clang::CFGBlock &) {}
  void transfer(const clang::Stmt *S, PlacementVars &Vars,
                const clang::CFGBlock &) const {
    Transfer.transfer(S, Vars);
  }
  bool same(const PlacementVars &Old, const PlacementVars &New) const {
    return Old == New;
  }

private:
  const clang::CFG &Cfg;
  const PlacementTransfer &Transfer;
  PlacementVars Entry;
  BlockFixpoint<PlacementFlow> Fix;
};

} // namespace analysis
} // namespace meshguard

#endif // MESHGUARD_LIB_ANALYSIS_PLACEMENTFLOW_H
