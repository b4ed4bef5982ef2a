//===--- PlacementFactsTest.cpp - Placements, meshes, the rule table ------===//

#include "Placements/PlacementFacts.h"
#include "ModelTesting.h"
#include "Placements/ModuleFacts.h"
#include "Placements/OperatorRules.h"
#include "meshguard/Analysis/Api/ApiIndex.h"
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
  EXPECT_EQ(findOperatorRule("trace")->Policy, ShardedPolicy::Refused);
  // dot has a rule since the coverage work: S(0) x S(0) gives P(sum).
  EXPECT_EQ(findOperatorRule("dot")->Policy, ShardedPolicy::Rule);
  EXPECT_TRUE(findOperatorRule("dot")->PartialFromShard);
  EXPECT_EQ(findOperatorRule("matmul")->Policy, ShardedPolicy::Decomposes);
  EXPECT_EQ(findOperatorRule("no_such_op"), nullptr);
  EXPECT_EQ(findOperatorRule(""), nullptr);
}

// out= overloads are another C++ name (at::softmax_out): they do not make
// softmax refused; softmax decomposes into _softmax, whose rule gives its
// result.
TEST(OperatorRules, OutOverloadsDoNotDecide) {
  EXPECT_EQ(findOperatorRule("softmax")->Policy, ShardedPolicy::Decomposes);
  EXPECT_EQ(findOperatorRule("log_softmax")->Policy, ShardedPolicy::Decomposes);
  EXPECT_EQ(findResultRule("softmax"), findOperatorRule("_softmax"));
  EXPECT_EQ(findResultRule("log_softmax"), findOperatorRule("_log_softmax"));
  EXPECT_EQ(findOperatorRule("histc")->Policy, ShardedPolicy::Refused);
  EXPECT_EQ(findResultRule("group_norm"), findOperatorRule("group_norm"));
}

TEST(OperatorRules, MatmulResultsFollowMm) {
  EXPECT_EQ(findResultRule("matmul"), findOperatorRule("mm"));
  EXPECT_EQ(findResultRule("sum"), findOperatorRule("sum"));
  // Other decomposing ops keep their own entry (not followed).
  EXPECT_EQ(findResultRule("einsum"), findOperatorRule("einsum"));
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

/// The tensor field reads of the snippet's function \p Name, by the source
/// text of their member name, in source order.
std::vector<const clang::MemberExpr *> fieldReads(clang::ASTContext &Ctx,
                                                  llvm::StringRef Name) {
  struct Collect : clang::RecursiveASTVisitor<Collect> {
    std::vector<const clang::MemberExpr *> Reads;
    bool VisitMemberExpr(clang::MemberExpr *M) {
      if (llvm::isa<clang::FieldDecl>(M->getMemberDecl()))
        Reads.push_back(M);
      return true;
    }
  } V;
  V.TraverseDecl(const_cast<clang::FunctionDecl *>(
      testing::findFunction(Ctx, Name.str())));
  return V.Reads;
}

TEST(ModuleFacts, ParametersOfShardedModules) {
  auto AST = testing::parseSnippet(R"cc(
    #include <meshguard/runtime/Parallelize.h>
    using namespace meshguard;
    void f(const DeviceMesh &m) {
      torch::nn::Linear a(2, 2), b(2, 2);
      (void)a->weight;
      fully_shard(*a, m);
      (void)a->weight;
      parallelize_module(*b, m, RowwiseParallel{});
      (void)b->weight;
      (void)b->bias;
      GatheredParameters gathered(*a);
      (void)a->weight;
    }
  )cc");
  clang::ASTContext &Ctx = AST->getASTContext();
  ApiIndex Index(ApiModel::builtin());
  ModulePlacements Modules(*testing::findFunction(Ctx, "f"), Index, Ctx);
  std::vector<const clang::MemberExpr *> Reads = fieldReads(Ctx, "f");
  ASSERT_EQ(Reads.size(), 5u);
  // Before fully_shard: a plain parameter.
  EXPECT_FALSE(Modules.parameter(*Reads[0]));
  std::optional<PlacementState> A = Modules.parameter(*Reads[1]);
  ASSERT_TRUE(A);
  EXPECT_EQ(A->ShardDims, 1u); // Shard(0)
  EXPECT_EQ(A->MeshDims, 1u);
  std::optional<PlacementState> W = Modules.parameter(*Reads[2]);
  ASSERT_TRUE(W);
  EXPECT_EQ(W->ShardDims, 2u); // RowwiseParallel: the weight is Shard(1)
  std::optional<PlacementState> Bias = Modules.parameter(*Reads[3]);
  ASSERT_TRUE(Bias);
  EXPECT_FALSE(Bias->maySplit()); // and the bias Replicate
  // Gathered for compute: not followed.
  EXPECT_FALSE(Modules.parameter(*Reads[4]));
}

TEST(ModuleFacts, PathsOfSubmodules) {
  auto AST = testing::parseSnippet(R"cc(
    struct Net : torch::nn::Module { torch::nn::Linear fc{2, 2}; };
    void g(Net &net, torch::nn::Linear &other) {
      (void)net.fc->weight;
      (void)other->weight;
    }
  )cc");
  clang::ASTContext &Ctx = AST->getASTContext();
  std::vector<const clang::MemberExpr *> Reads = fieldReads(Ctx, "g");
  ASSERT_EQ(Reads.size(), 3u); // net.fc, fc->weight, other->weight
  std::optional<ModulePath> Fc = modulePath(Reads[0]);
  std::optional<ModulePath> Net = modulePath(Reads[0]->getBase());
  std::optional<ModulePath> Other = modulePath(Reads[2]->getBase());
  ASSERT_TRUE(Fc && Net && Other);
  EXPECT_TRUE(Fc->within(*Net));
  EXPECT_FALSE(Net->within(*Fc));
  EXPECT_FALSE(Other->within(*Net));
}

} // namespace
} // namespace analysis
} // namespace meshguard
