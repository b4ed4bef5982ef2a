//===--- ProvenanceTensorTest.cpp - The model's transfer functions on tensors //
//
// One snippet per transfer function (see
// lib/Analysis/Provenance/ProvenanceModel.cpp): sources, ops (free, method,
// operator, pointer), factories the table does not list, unknown calls,
// summaries of the TU's functions, is_dtensor, OrderedDict items, joins.
//
//===----------------------------------------------------------------------===//

#include "ModelTesting.h"
#include "gtest/gtest.h"

namespace meshguard {
namespace analysis {
namespace testing {
namespace {

const char *const MeshDecl = R"cc(
meshguard::DeviceMesh mesh("cpu", {0, 1});
)cc";

std::string withMesh(const std::string &Body) { return MeshDecl + Body; }

TEST(ProvenanceTensor, SourcesDecideProvenance) {
  PointFacts F = analyseTarget(withMesh(R"cc(
    void target() {
      at::Tensor p = torch::randn({2});
      at::Tensor d = meshguard::distribute_tensor(p, mesh, {meshguard::Replicate{}});
      at::Tensor l = meshguard::to_local(d);
      at::Tensor f = meshguard::from_local(l, mesh, {meshguard::Shard{0}});
      point("p");
    })cc"));
  EXPECT_EQ(F.at("p", "p"), "plain");
  EXPECT_EQ(F.at("p", "d"), "dtensor");
  EXPECT_EQ(F.at("p", "l"), "plain");
  EXPECT_EQ(F.at("p", "f"), "dtensor");
}

TEST(ProvenanceTensor, ParametersAreUnknown) {
  PointFacts F = analyseTarget(R"cc(
    void target(at::Tensor t) { point("p"); })cc");
  EXPECT_EQ(F.at("p", "t"), "unknown");
}

TEST(ProvenanceTensor, FreeOpIsDTensorIfAnOperandIs) {
  PointFacts F = analyseTarget(withMesh(R"cc(
    void target() {
      at::Tensor p = torch::randn({2});
      at::Tensor d = meshguard::distribute_tensor(p, mesh, {meshguard::Replicate{}});
      at::Tensor mixed = at::matmul(p, d);
      at::Tensor plain = at::matmul(p, p);
      point("p");
    })cc"));
  EXPECT_EQ(F.at("p", "mixed"), "dtensor");
  EXPECT_EQ(F.at("p", "plain"), "plain");
}

TEST(ProvenanceTensor, OperatorsAndMethodsAreOps) {
  PointFacts F = analyseTarget(withMesh(R"cc(
    void target() {
      at::Tensor p = torch::randn({2});
      at::Tensor d = meshguard::distribute_tensor(p, mesh, {meshguard::Replicate{}});
      at::Tensor sum = p + d;
      at::Tensor scaled = p * 2;
      at::Tensor viaMethod = p.mul(d);
      at::Tensor cloned = d.clone();
      point("p");
    })cc"));
  EXPECT_EQ(F.at("p", "sum"), "dtensor");
  EXPECT_EQ(F.at("p", "scaled"), "plain");
  EXPECT_EQ(F.at("p", "viaMethod"), "dtensor");
  EXPECT_EQ(F.at("p", "cloned"), "dtensor");
}

TEST(ProvenanceTensor, OpWithAnUnknownOperandIsUnknown) {
  PointFacts F = analyseTarget(R"cc(
    void target(at::Tensor u) {
      at::Tensor p = torch::randn({2});
      at::Tensor r = p + u;
      point("p");
    })cc");
  EXPECT_EQ(F.at("p", "r"), "unknown");
}

TEST(ProvenanceTensor, UnlistedFactoryInAnOpNamespaceIsPlain) {
  PointFacts F = analyseTarget(R"cc(
    void target() {
      at::Tensor s = at::scalar_tensor(1);
      point("p");
    })cc");
  EXPECT_EQ(F.at("p", "s"), "plain");
}

TEST(ProvenanceTensor, UnknownCallResultIsUnknown) {
  PointFacts F = analyseTarget(R"cc(
    at::Tensor external();
    void target() {
      at::Tensor t = external();
      point("p");
    })cc");
  EXPECT_EQ(F.at("p", "t"), "unknown");
}

TEST(ProvenanceTensor, NonConstReferenceArgumentBecomesUnknown) {
  PointFacts F = analyseTarget(R"cc(
    void rewrite(at::Tensor &t);
    void look(const at::Tensor &t);
    void target() {
      at::Tensor a = torch::randn({2});
      at::Tensor b = torch::randn({2});
      rewrite(a);
      look(b);
      point("p");
    })cc");
  EXPECT_EQ(F.at("p", "a"), "unknown");
  EXPECT_EQ(F.at("p", "b"), "plain");
}

TEST(ProvenanceTensor, InPlaceOperatorKeepsProvenance) {
  PointFacts F = analyseTarget(R"cc(
    void target() {
      at::Tensor a = torch::randn({2});
      a += 1;
      a.mul_(2);
      point("p");
    })cc");
  EXPECT_EQ(F.at("p", "a"), "plain");
}

TEST(ProvenanceTensor, SummaryOfAFunctionOfThisTU) {
  PointFacts F = analyseTarget(withMesh(R"cc(
    at::Tensor makeLocal(const at::Tensor &t) { return meshguard::to_local(t); }
    at::Tensor makeShared(const at::Tensor &t) {
      return meshguard::distribute_tensor(t, mesh, {meshguard::Replicate{}});
    }
    void target(at::Tensor u) {
      at::Tensor l = makeLocal(u);
      at::Tensor s = makeShared(u);
      point("p");
    })cc"));
  EXPECT_EQ(F.at("p", "l"), "plain");
  EXPECT_EQ(F.at("p", "s"), "dtensor");
}

TEST(ProvenanceTensor, IsDTensorIsTheArgumentsProvenance) {
  PointFacts F = analyseTarget(withMesh(R"cc(
    void target() {
      at::Tensor p = torch::randn({2});
      at::Tensor d = meshguard::distribute_tensor(p, mesh, {meshguard::Replicate{}});
      bool pd = meshguard::is_dtensor(p);
      bool dd = meshguard::is_dtensor(d);
      point("p");
    })cc"));
  EXPECT_EQ(F.at("p", "pd"), "false");
  EXPECT_EQ(F.at("p", "dd"), "true");
}

TEST(ProvenanceTensor, JoinOfPlainAndDTensorIsMaybe) {
  PointFacts F = analyseTarget(withMesh(R"cc(
    void target(bool c) {
      at::Tensor t = torch::randn({2});
      if (c)
        t = meshguard::distribute_tensor(t, mesh, {meshguard::Replicate{}});
      point("p");
    })cc"));
  // Known on every path, plain on one.
  EXPECT_EQ(F.at("p", "t"), "maybe-plain");
}

TEST(ProvenanceTensor, CopiesAndMovesCarryProvenance) {
  PointFacts F = analyseTarget(withMesh(R"cc(
    void target() {
      at::Tensor d = meshguard::distribute_tensor(torch::randn({2}), mesh,
                                                  {meshguard::Replicate{}});
      at::Tensor copy = d;
      at::Tensor moved = std::move(copy);
      const at::Tensor &ref = moved;
      point("p");
    })cc"));
  EXPECT_EQ(F.at("p", "moved"), "dtensor");
  EXPECT_EQ(F.at("p", "ref"), "dtensor");
}

TEST(ProvenanceTensor, CollectivesKeepTheirInputsProvenance) {
  PointFacts F = analyseTarget(R"cc(
    void target() {
      at::Tensor t = torch::randn({2});
      meshguard::dist::all_reduce_({t});
      point("p");
    })cc");
  EXPECT_EQ(F.at("p", "t"), "plain");
}

TEST(ProvenanceTensor, OrderedDictItemCarriesItsTensorsProvenance) {
  PointFacts F = analyseTarget(R"cc(
    void target() {
      torch::nn::Linear lin(2, 2);
      for (auto &item : lin->named_parameters()) {
        at::Tensor v = item.value();
        at::Tensor star = *item;
        point("in");
      }
    })cc");
  EXPECT_EQ(F.at("in", "v"), "plain");
  EXPECT_EQ(F.at("in", "star"), "plain");
}

TEST(ProvenanceTensor, MethodThroughATensorPointerIsAnOp) {
  PointFacts F = analyseTarget(withMesh(R"cc(
    void target() {
      at::Tensor d = meshguard::distribute_tensor(torch::randn({2}), mesh,
                                                  {meshguard::Replicate{}});
      at::Tensor *ptr = &d;
      at::Tensor c = ptr->clone();
      point("p");
    })cc"));
  EXPECT_EQ(F.at("p", "c"), "dtensor");
}

TEST(ProvenanceTensor, LambdaCapturesCarryProvenance) {
  PointFacts F = analyseTarget(R"cc(
    void outer() {
      at::Tensor p = torch::randn({2});
      auto target = [p]() {
        at::Tensor q = p * 2;
        point("in");
      };
      target();
    })cc");
  EXPECT_EQ(F.at("in", "q"), "plain");
}

} // namespace
} // namespace testing
} // namespace analysis
} // namespace meshguard
