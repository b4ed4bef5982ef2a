//===--- CDCLSolver.h - A Solver on CDCL ------------------------*- C++ -*-===//
//
// The dataflow framework asks a SAT solver whether the flow condition proves
// or allows a formula (at every `proves`/`allows` and when it widens booleans
// at loop heads). Its built-in WatchedLiteralsSolver is DPLL without clause
// learning: on the disjunctive constraints that joins of many tensors produce
// inside a training loop, single queries of ~60 constraints took more than
// 2 million iterations. This solver answers the same queries with CaDiCaL,
// a conflict-driven clause-learning solver, which needs a handful of
// conflicts for them.
//
//===----------------------------------------------------------------------===//

#ifndef MESHGUARD_ANALYSIS_CDCLSOLVER_H
#define MESHGUARD_ANALYSIS_CDCLSOLVER_H

#include "clang/Analysis/FlowSensitive/Solver.h"
#include <cstdint>

namespace meshguard {
namespace analysis {

class CDCLSolver final : public clang::dataflow::Solver {
public:
  /// \p ConflictBudget bounds the conflicts of all queries together; once it
  /// is spent every query times out and reachedLimit() is true.
  explicit CDCLSolver(std::int64_t ConflictBudget)
      : Remaining(ConflictBudget) {}

  Result solve(llvm::ArrayRef<const clang::dataflow::Formula *> Vals) override;
  bool reachedLimit() const override { return Remaining <= 0; }

  std::int64_t queries() const { return Queries; }
  std::int64_t conflicts() const { return Conflicts; }

private:
  std::int64_t Remaining;
  std::int64_t Queries = 0;
  std::int64_t Conflicts = 0;
};

} // namespace analysis
} // namespace meshguard

#endif // MESHGUARD_ANALYSIS_CDCLSOLVER_H
