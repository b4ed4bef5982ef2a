//===--- RankAtCalls.h - Rank dependence around chosen calls ----*- C++ -*-===//
//
// For calls a check picks: whether a rank-dependent condition decides if the
// call runs (inside `if (rank == 0)`, after a rank-dependent early exit, in
// a loop whose trip count differs per rank), and whether one argument of it
// differs per rank. The divergence analysis's rank flow
// (Divergence/RankFlow.h), with the function's parameters uniform.
//
//===----------------------------------------------------------------------===//

#ifndef MESHGUARD_ANALYSIS_RANKATCALLS_H
#define MESHGUARD_ANALYSIS_RANKATCALLS_H

#include "meshguard/Analysis/Divergence/DivergentCollectives.h"
#include "llvm/ADT/DenseMap.h"

namespace meshguard {
namespace analysis {

struct CallRankFacts {
  /// Where the rank-dependent value of a condition deciding whether the
  /// call runs comes from, or null.
  const clang::Expr *ControlOrigin = nullptr;
  /// Where the chosen argument gets a rank-dependent value, or null.
  const clang::Expr *ArgumentOrigin = nullptr;
};

struct RankAtCallsScan {
  AnalysisResult Result;
  /// Only the calls asked about, and only when Result.ok().
  llvm::DenseMap<const clang::CallExpr *, CallRankFacts> Calls;
};

/// The facts of each call of \p FD in \p Argument (call to the index of its
/// argument to read).
RankAtCallsScan
rankAtCalls(const clang::FunctionDecl &FD,
            const llvm::DenseMap<const clang::CallExpr *, unsigned> &Argument,
            DivergenceMemo &Memo, const AnalysisLimits &Limits);

} // namespace analysis
} // namespace meshguard

#endif // MESHGUARD_ANALYSIS_RANKATCALLS_H
