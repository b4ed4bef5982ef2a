//===--- BlockFixpoint.h - One solver for the lighter flows -----*- C++ -*-===//
//
// The rank flow (Divergence) and the placement flow (Placements) are both
// forward may-analyses of a map from places to facts: the maps of a block's
// predecessors joined at its entry, a transfer per statement, blocks in
// reverse post-order until no block's exit changes, and a replay of a block
// to give the facts before one of its statements. This is their one solver;
// a domain says how its maps start, join, compare and pass a statement:
//
//   using State = ...;                        // the map, copyable
//   State entryState() const;                 // at the function's entry
//   void join(State &Into, const State &From) const;
//   void enterBlock(const clang::CFGBlock &B);   // before B's statements
//   void transfer(const clang::Stmt *S, State &Vars,
//                 const clang::CFGBlock &B) const;
//   bool same(const State &Old, const State &New) const;
//
// (The provenance analysis, which needs flow conditions and a SAT solver,
// runs on clang's FlowSensitive framework instead.)
//
//===----------------------------------------------------------------------===//

#ifndef MESHGUARD_LIB_ANALYSIS_BLOCKFIXPOINT_H
#define MESHGUARD_LIB_ANALYSIS_BLOCKFIXPOINT_H

#include "meshguard/Analysis/Provenance/FunctionAnalysis.h"
#include "clang/Analysis/Analyses/PostOrderCFGView.h"
#include "clang/Analysis/CFG.h"
#include <optional>
#include <utility>
#include <vector>

namespace meshguard {
namespace analysis {

template <typename Domain> class BlockFixpoint {
public:
  using State = typename Domain::State;

  BlockFixpoint(const clang::CFG &Cfg, Domain &D)
      : Cfg(Cfg), D(D), In(Cfg.getNumBlockIDs()), Out(Cfg.getNumBlockIDs()),
        Done(Cfg.getNumBlockIDs(), false) {}

  /// Runs to a fixpoint; false when MaxBlockVisits stops it first (the
  /// facts are then incomplete and must not be used).
  bool solve(const AnalysisLimits &Limits) {
    clang::PostOrderCFGView Order(&Cfg);
    std::int32_t Visits = 0;
    for (bool Changed = true; Changed;) {
      Changed = false;
      for (const clang::CFGBlock *B : Order) {
        if (++Visits > Limits.MaxBlockVisits)
          return false;
        unsigned ID = B->getBlockID();
        State Vars = B == &Cfg.getEntry() ? D.entryState() : State();
        for (const clang::CFGBlock *P : B->preds())
          if (P && Done[P->getBlockID()])
            D.join(Vars, Out[P->getBlockID()]);
        In[ID] = Vars;
        D.enterBlock(*B);
        for (const clang::CFGElement &E : *B)
          if (std::optional<clang::CFGStmt> S = E.getAs<clang::CFGStmt>())
            D.transfer(S->getStmt(), Vars, *B);
        if (!Done[ID] || !D.same(Out[ID], Vars)) {
          Out[ID] = std::move(Vars);
          Done[ID] = true;
          Changed = true;
        }
      }
    }
    return true;
  }

  /// Whether the flow reached \p B (unreachable blocks have no facts).
  bool reached(const clang::CFGBlock &B) const { return Done[B.getBlockID()]; }
  /// The facts at the exit of \p B.
  const State &out(const clang::CFGBlock &B) const {
    return Out[B.getBlockID()];
  }

  /// Replays \p B from its entry facts: calls \p Visit(S, facts before S)
  /// for each statement until it returns false; returns the facts reached
  /// (before the statement that stopped it, or at the block's exit).
  template <typename Fn>
  State replay(const clang::CFGBlock &B, Fn Visit) const {
    State Vars = In[B.getBlockID()];
    for (const clang::CFGElement &E : B)
      if (std::optional<clang::CFGStmt> S = E.getAs<clang::CFGStmt>()) {
        if (!Visit(S->getStmt(), std::as_const(Vars)))
          break;
        D.transfer(S->getStmt(), Vars, B);
      }
    return Vars;
  }

private:
  const clang::CFG &Cfg;
  Domain &D;
  std::vector<State> In, Out;
  std::vector<bool> Done;
};

} // namespace analysis
} // namespace meshguard

#endif // MESHGUARD_LIB_ANALYSIS_BLOCKFIXPOINT_H
