//===--- CDCLSolver.cpp - FlowSensitive's Solver on a CDCL SAT solver -----===//

#include "Provenance/CDCLSolver.h"
#include "clang/Analysis/FlowSensitive/CNFFormula.h"
#include "llvm/ADT/DenseMap.h"
#include <cadical.hpp>
#include <limits>

using namespace clang::dataflow;

namespace meshguard {
namespace analysis {

namespace {
/// CaDiCaL reports every learned clause: one per conflict.
class ConflictCounter : public CaDiCaL::Learner {
public:
  bool learning(int) override {
    ++Count;
    return false; // Count it; the clause itself is not wanted.
  }
  void learn(int) override {}
  std::int64_t Count = 0;
};

int toDimacs(Literal L) {
  int V = static_cast<int>(var(L));
  return isPosLit(L) ? V : -V;
}
} // namespace

Solver::Result CDCLSolver::solve(llvm::ArrayRef<const Formula *> Vals) {
  if (reachedLimit())
    return Result::TimedOut();
  ++Queries;
  llvm::DenseMap<Variable, Atom> Atomics;
  CNFFormula CNF = buildCNF(Vals, Atomics);
  if (CNF.knownContradictory())
    return Result::Unsatisfiable();

  CaDiCaL::Solver Sat;
  // Every variable exists, even one that simplification left in no clause
  // (CaDiCaL aborts on val() of an unknown variable).
  Sat.reserve(static_cast<int>(CNF.largestVar()));
  for (ClauseID C = 1; C <= CNF.numClauses(); ++C) {
    for (Literal L : CNF.clauseLiterals(C))
      Sat.add(toDimacs(L));
    Sat.add(0);
  }
  ConflictCounter Counter;
  Sat.connect_learner(&Counter);
  Sat.limit("conflicts", static_cast<int>(std::min<std::int64_t>(
                             Remaining, std::numeric_limits<int>::max())));
  int Status = Sat.solve();
  Sat.disconnect_learner();
  Conflicts += Counter.Count;
  Remaining -= Counter.Count;

  if (Status == 20)
    return Result::Unsatisfiable();
  if (Status != 10) {
    Remaining = 0; // The budget ran out inside this query.
    return Result::TimedOut();
  }
  llvm::DenseMap<Atom, Result::Assignment> Solution;
  for (const auto &[Var, A] : Atomics)
    Solution[A] = Sat.val(static_cast<int>(Var)) > 0
                      ? Result::Assignment::AssignedTrue
                      : Result::Assignment::AssignedFalse;
  return Result::Satisfiable(std::move(Solution));
}

} // namespace analysis
} // namespace meshguard
