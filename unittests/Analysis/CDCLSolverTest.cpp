//===--- CDCLSolverTest.cpp - The CaDiCaL adapter of the dataflow solver --===//

#include "Provenance/CDCLSolver.h"
#include "clang/Analysis/FlowSensitive/Arena.h"
#include "gtest/gtest.h"

namespace meshguard {
namespace analysis {
namespace {

using clang::dataflow::Arena;
using clang::dataflow::Formula;
using clang::dataflow::Solver;

class CDCLSolverTest : public ::testing::Test {
protected:
  Arena A;
  const Formula &atom() { return A.makeAtomRef(A.makeAtom()); }
};

TEST_F(CDCLSolverTest, SatisfiableWithAModel) {
  CDCLSolver S(1000);
  const Formula &X = atom(), &Y = atom();
  Solver::Result R = S.solve({&A.makeAnd(X, A.makeNot(Y))});
  ASSERT_EQ(R.getStatus(), Solver::Result::Status::Satisfiable);
  auto Model = R.getSolution();
  ASSERT_TRUE(Model.has_value());
  EXPECT_EQ(Model->lookup(X.getAtom()),
            Solver::Result::Assignment::AssignedTrue);
  EXPECT_EQ(Model->lookup(Y.getAtom()),
            Solver::Result::Assignment::AssignedFalse);
  EXPECT_EQ(S.queries(), 1);
}

TEST_F(CDCLSolverTest, Unsatisfiable) {
  CDCLSolver S(1000);
  const Formula &X = atom();
  EXPECT_EQ(S.solve({&X, &A.makeNot(X)}).getStatus(),
            Solver::Result::Status::Unsatisfiable);
  EXPECT_EQ(S.solve({&A.makeLiteral(false)}).getStatus(),
            Solver::Result::Status::Unsatisfiable);
}

TEST_F(CDCLSolverTest, ImplicationsAndEquivalences) {
  CDCLSolver S(1000);
  const Formula &X = atom(), &Y = atom();
  // X => Y, X, !Y is unsatisfiable; X <=> Y, X, Y is satisfiable.
  EXPECT_EQ(S.solve({&A.makeImplies(X, Y), &X, &A.makeNot(Y)}).getStatus(),
            Solver::Result::Status::Unsatisfiable);
  EXPECT_EQ(S.solve({&A.makeEquals(X, Y), &X, &Y}).getStatus(),
            Solver::Result::Status::Satisfiable);
}

TEST_F(CDCLSolverTest, EmptyQueryIsSatisfiable) {
  CDCLSolver S(1000);
  EXPECT_EQ(S.solve({}).getStatus(), Solver::Result::Status::Satisfiable);
}

TEST_F(CDCLSolverTest, SpentBudgetTimesOut) {
  // Pigeonhole 7 into 6: unsatisfiable, and needs many conflicts.
  const int P = 7, H = 6;
  std::vector<std::vector<const Formula *>> In(P);
  for (int I = 0; I < P; ++I)
    for (int J = 0; J < H; ++J)
      In[I].push_back(&atom());
  std::vector<const Formula *> Clauses;
  for (int I = 0; I < P; ++I) {
    const Formula *Some = &A.makeLiteral(false);
    for (int J = 0; J < H; ++J)
      Some = &A.makeOr(*Some, *In[I][J]);
    Clauses.push_back(Some);
  }
  for (int J = 0; J < H; ++J)
    for (int I = 0; I < P; ++I)
      for (int K = I + 1; K < P; ++K)
        Clauses.push_back(&A.makeNot(A.makeAnd(*In[I][J], *In[K][J])));
  CDCLSolver Small(10);
  EXPECT_EQ(Small.solve(Clauses).getStatus(), Solver::Result::Status::TimedOut);
  EXPECT_TRUE(Small.reachedLimit());
  // Later queries time out at once.
  EXPECT_EQ(Small.solve({&atom()}).getStatus(),
            Solver::Result::Status::TimedOut);

  CDCLSolver Large(10'000'000);
  EXPECT_EQ(Large.solve(Clauses).getStatus(),
            Solver::Result::Status::Unsatisfiable);
  EXPECT_FALSE(Large.reachedLimit());
  EXPECT_GT(Large.conflicts(), 10);
}

} // namespace
} // namespace analysis
} // namespace meshguard
