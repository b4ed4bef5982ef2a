//===--- RankFlow.h - Rank dependence over one function's CFG ---*- C++ -*-===//
//
// Runs RankDependenceTU's transfer function to a fixpoint over one
// function's CFG, with the lighter flows' one solver (BlockFixpoint.h) and
// implicit flows (what a block
// assigns under a rank-dependent condition is rank-dependent), and answers
// what the divergence analysis asks: which blocks decide whether a block
// runs (transitive control dependence), whether a block's condition is
// rank-dependent, and what is rank-dependent just before a call.
//
// The parameters start either uniform (a parameter given a rank-dependent
// argument is reported at that call, not inside the callee) or each marked
// by a placeholder of its own, to learn which parameter decides whether a
// collective runs.
//
//===----------------------------------------------------------------------===//

#ifndef MESHGUARD_LIB_ANALYSIS_RANKFLOW_H
#define MESHGUARD_LIB_ANALYSIS_RANKFLOW_H

#include "Divergence/RankDependence.h"
#include "Provenance/BlockFixpoint.h"
#include "meshguard/Analysis/Provenance/FunctionAnalysis.h"
#include "clang/Analysis/Analyses/Dominators.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include <memory>
#include <optional>
#include <vector>

namespace meshguard {
namespace analysis {

class RankFlow {
public:
  using State = RankVars;

  /// \p ParameterMarks: one placeholder expression per parameter of \p FD
  /// (its rank-dependent origin), or empty for uniform parameters.
  RankFlow(const clang::FunctionDecl &FD, clang::CFG &Cfg,
           RankDependenceTU &Facts,
           llvm::ArrayRef<const clang::Expr *> ParameterMarks);
  RankFlow(const RankFlow &) = delete; // Its solver refers to it.
  RankFlow &operator=(const RankFlow &) = delete;

  /// Runs to a fixpoint; false when \p Limits stop it first.
  bool solve(const AnalysisLimits &Limits);

  /// The blocks whose branch decides whether \p B runs, nearest first.
  const llvm::SmallVector<clang::CFGBlock *, 8> &
  controllingBlocks(clang::CFGBlock *B);
  /// Where the condition ending \p B gets a rank-dependent value, or null.
  const clang::Expr *conditionOrigin(const clang::CFGBlock *B) const;
  /// Where the condition ending \p B gets a rank-dependent value other
  /// than from \p Source (`rank` in `coord[1] == 0 || rank == 3`), or null.
  const clang::Expr *conditionOriginBesides(const clang::CFGBlock *B,
                                            const clang::Expr *Source) const;
  /// The block whose declaration statement declares \p V, or null.
  clang::CFGBlock *blockDeclaring(const clang::VarDecl *V) const;
  /// Where \p E, evaluated just before the CFG element \p At of \p B, gets
  /// a rank-dependent value, or null.
  const clang::Expr *originBefore(const clang::Expr *E,
                                  const clang::CFGBlock *B,
                                  const clang::Stmt *At) const;

  // The domain, for BlockFixpoint.
  RankVars entryState() const;
  /// The first origin found for a place is kept.
  void join(RankVars &Into, const RankVars &From) const {
    for (const auto &[V, O] : From)
      Into.try_emplace(V, O);
  }
  /// What the conditions deciding whether \p B runs make of its writes.
  void enterBlock(const clang::CFGBlock &B);
  void transfer(const clang::Stmt *S, RankVars &Vars,
                const clang::CFGBlock &B) const {
    Facts.transfer(S, Vars, &FD, Implicit[B.getBlockID()]);
  }
  /// Rank dependence is a set of places: where it comes from is for notes.
  bool same(const RankVars &Old, const RankVars &New) const;

private:
  const clang::Expr *implicitOrigin(clang::CFGBlock *B);

  const clang::FunctionDecl &FD;
  clang::CFG &Cfg;
  RankDependenceTU &Facts;
  llvm::ArrayRef<const clang::Expr *> ParameterMarks;
  clang::ControlDependencyCalculator Deps;
  llvm::DenseMap<const clang::CFGBlock *,
                 llvm::SmallVector<clang::CFGBlock *, 8>>
      DepCache;
  std::vector<const clang::Expr *> Implicit;
  BlockFixpoint<RankFlow> Fix;
};

/// Calls in \p S in evaluation order (arguments before the call), lambda
/// bodies excluded.
void callsIn(const clang::Stmt *S,
             llvm::SmallVectorImpl<const clang::CallExpr *> &Out);

/// A helper's CFG and its rank flow, each parameter marked by a placeholder
/// of its own (DivergenceMemo::markedFlow).
struct MarkedRankFlow {
  std::unique_ptr<clang::CFG> Cfg;
  std::vector<const clang::Expr *> Marks;
  std::unique_ptr<RankFlow> Flow;
};

} // namespace analysis
} // namespace meshguard

#endif // MESHGUARD_LIB_ANALYSIS_RANKFLOW_H
