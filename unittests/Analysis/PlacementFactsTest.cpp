//===--- PlacementFactsTest.cpp - Placements, meshes, the rule table ------===//

#include "Placements/PlacementFacts.h"
#include "ModelTesting.h"
#include "Placements/OperatorRules.h"
#include "meshguard/Analysis/ApiIndex.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "gtest/gtest.h"

namespace meshguard {
namespace analysis {
namespace {

TEST(OperatorRules, ReadsTheGeneratedTable) {
  const OperatorRule *Sum = findOperatorRule("sum");
  ASSERT_TRUE(Sum);
  EXPECT_EQ(Sum->Policy, ShardedPolicy::Rule);
  EXPECT_EQ(Sum->Family, "reduction");
  EXPECT_TRUE(Sum->PartialFromShard);
  EXPECT_TRUE(Sum->KeepsPartial);
  // Linear ops keep Partial; non-linear ones do not.
  EXPECT_TRUE(findOperatorRule("mul")->KeepsPartial);
  EXPECT_FALSE(findOperatorRule("pow")->KeepsPartial);
  // mm of S(1) x S(0) is Partial; addmm's text says "as mm".
  EXPECT_TRUE(findOperatorRule("mm")->PartialFromShard);
  EXPECT_TRUE(findOperatorRule("addmm")->PartialFromShard);
  // mse_loss: "S(d)xS(d) (aligned) -> S(d) unreduced, P(sum) for sum and mean".
  EXPECT_TRUE(findOperatorRule("mse_loss")->PartialFromShard);
  EXPECT_EQ(findOperatorRule("dot")->Policy, ShardedPolicy::Refused);
  EXPECT_EQ(findOperatorRule("matmul")->Policy, ShardedPolicy::Decomposes);
  EXPECT_EQ(findOperatorRule("no_such_op"), nullptr);
  EXPECT_EQ(findOperatorRule(""), nullptr);
}

/// The calls of the snippet's function \p Name, in source order.
std::vector<const clang::CallExpr *> callsIn(clang::ASTContext &Ctx,
                                             llvm::StringRef Name) {
  struct Collect : clang::RecursiveASTVisitor<Collect> {
    std::vector<const clang::CallExpr *> Calls;
    bool VisitCallExpr(clang::CallExpr *C) {
      Calls.push_back(C);
      return true;
    }
  } V;
  V.TraverseDecl(const_cast<clang::FunctionDecl *>(
      testing::findFunction(Ctx, Name.str())));
  return V.Calls;
}

/// The placements argument of the snippet's only from_local call.
const clang::Expr *placementsOf(clang::ASTContext &Ctx, llvm::StringRef Fn) {
  for (const clang::CallExpr *C : callsIn(Ctx, Fn))
    if (const clang::FunctionDecl *FD = C->getDirectCallee();
        FD && FD->getName() == "from_local")
      return C->getArg(2);
  return nullptr;
}

TEST(PlacementFacts, ReadsPlacementLists) {
  auto AST = testing::parseSnippet(R"cc(
    using namespace meshguard;
    void s0(const DeviceMesh &m, const at::Tensor &t) { from_local(t, m, {Shard{0}}); }
    void rp(const DeviceMesh &m, const at::Tensor &t) { from_local(t, m, {Replicate{}, Partial{}}); }
    void rr(const DeviceMesh &m, const at::Tensor &t) { from_local(t, m, {Replicate{}, Replicate{}}); }
    void var(const DeviceMesh &m, const at::Tensor &t, const Placements &p) { from_local(t, m, p); }
  )cc");
  clang::ASTContext &Ctx = AST->getASTContext();
  PlacementState S0 = readPlacements(placementsOf(Ctx, "s0"), Ctx);
  EXPECT_EQ(S0.ShardDims, 1u);
  EXPECT_FALSE(S0.MayPartial);
  EXPECT_EQ(S0.MeshDims, 1u);
  PlacementState RP = readPlacements(placementsOf(Ctx, "rp"), Ctx);
  EXPECT_EQ(RP.ShardDims, 0u);
  EXPECT_TRUE(RP.MayPartial);
  EXPECT_EQ(RP.MeshDims, 2u);
  EXPECT_TRUE(spellsOnlyReplicate(placementsOf(Ctx, "rr")));
  EXPECT_FALSE(spellsOnlyReplicate(placementsOf(Ctx, "rp")));
  // Not spelled at the call: unknown, never sharded or Partial.
  PlacementState Var = readPlacements(placementsOf(Ctx, "var"), Ctx);
  EXPECT_FALSE(Var.maySplit());
  EXPECT_EQ(Var.MeshDims, 0u);
  EXPECT_FALSE(spellsOnlyReplicate(placementsOf(Ctx, "var")));
}

TEST(PlacementFacts, JoinsAreUnions) {
  PlacementState A, B;
  A.ShardDims = 1;
  A.MeshDims = 1;
  B.MayPartial = true;
  B.MeshDims = 2;
  A.join(B);
  EXPECT_EQ(A.ShardDims, 1u);
  EXPECT_TRUE(A.MayPartial);
  EXPECT_EQ(A.MeshDims, 0u); // disagree: unknown
  PlacementState Local;
  Local.What = PlacementState::Kind::PartialLocal;
  A.join(Local); // a share on one path wins: its uses are what is reported
  EXPECT_TRUE(A.isPartialLocal());
}

TEST(PlacementFacts, MeshesDifferByPlacementCount) {
  ApiIndex Index(ApiModel::builtin());
  auto AST = testing::parseSnippet("");
  PlacementState OneD, TwoD, Unknown;
  OneD.MeshDims = 1;
  TwoD.MeshDims = 2;
  EXPECT_TRUE(surelyDifferentMeshes(OneD, TwoD, Index, AST->getASTContext()));
  EXPECT_FALSE(surelyDifferentMeshes(OneD, OneD, Index, AST->getASTContext()));
  EXPECT_FALSE(
      surelyDifferentMeshes(OneD, Unknown, Index, AST->getASTContext()));
}

} // namespace
} // namespace analysis
} // namespace meshguard
