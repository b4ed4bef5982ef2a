//===--- ProvenanceContainerTest.cpp - The model on tensor containers -----===//
//
// Braced lists, constructors, push_back, clear, element access, assignment,
// range-for loops over containers, CollectiveGuard::sanitize_args.
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
at::Tensor makeDTensor() {
  return meshguard::distribute_tensor(torch::randn({2}), mesh,
                                      {meshguard::Replicate{}});
}
)cc";

std::string withMesh(const std::string &Body) { return MeshDecl + Body; }

TEST(ProvenanceContainer, BracedListFoldsItsElements) {
  PointFacts F = analyseTarget(withMesh(R"cc(
    void target() {
      at::Tensor p = torch::randn({2});
      at::Tensor d = makeDTensor();
      std::vector<at::Tensor> plain = {p, p};
      std::vector<at::Tensor> dt = {d, d};
      std::vector<at::Tensor> mixed = {p, d};
      point("p");
    })cc"));
  EXPECT_EQ(F.at("p", "plain"), "plain");
  EXPECT_EQ(F.at("p", "dt"), "dtensor");
  // Known, neither all plain nor all DTensors.
  EXPECT_EQ(F.at("p", "mixed"), "maybe-dtensor");
}

TEST(ProvenanceContainer, CountAndValueConstructor) {
  PointFacts F = analyseTarget(R"cc(
    void target() {
      at::Tensor p = torch::randn({2});
      std::vector<at::Tensor> copies(3, p);
      point("p");
    })cc");
  EXPECT_EQ(F.at("p", "copies"), "plain");
}

TEST(ProvenanceContainer, PushBackAddsAnElement) {
  PointFacts F = analyseTarget(withMesh(R"cc(
    void target() {
      std::vector<at::Tensor> v;
      v.push_back(torch::randn({2}));
      point("plain");
      v.push_back(makeDTensor());
      point("mixed");
      v.clear();
      point("cleared");
    })cc"));
  EXPECT_EQ(F.at("plain", "v"), "plain");
  EXPECT_EQ(F.at("mixed", "v"), "maybe-dtensor");
  // Empty: vacuously all plain and all DTensors; the classification says
  // plain first.
  EXPECT_EQ(F.at("cleared", "v"), "plain");
}

TEST(ProvenanceContainer, ElementOfAnAllPlainContainerIsPlain) {
  PointFacts F = analyseTarget(R"cc(
    void target() {
      const std::vector<at::Tensor> v = {torch::randn({2}), torch::randn({2})};
      at::Tensor first = v[0];
      at::Tensor last = v.back();
      point("p");
    })cc");
  EXPECT_EQ(F.at("p", "first"), "plain");
  EXPECT_EQ(F.at("p", "last"), "plain");
  EXPECT_EQ(F.at("p", "v"), "plain");
}

TEST(ProvenanceContainer, NonConstElementAccessMayWriteTheContainer) {
  PointFacts F = analyseTarget(R"cc(
    void target() {
      std::vector<at::Tensor> v = {torch::randn({2})};
      at::Tensor first = v[0];
      point("p");
    })cc");
  EXPECT_EQ(F.at("p", "first"), "plain");
  // The reference v[0] returns may be written through later.
  EXPECT_EQ(F.at("p", "v"), "unknown");
}

TEST(ProvenanceContainer, AssignmentFromABracedList) {
  PointFacts F = analyseTarget(withMesh(R"cc(
    void target() {
      std::vector<at::Tensor> v = {torch::randn({2})};
      v = {makeDTensor()};
      point("p");
    })cc"));
  EXPECT_EQ(F.at("p", "v"), "dtensor");
}

TEST(ProvenanceContainer, UnknownMutationForgetsTheFacts) {
  PointFacts F = analyseTarget(R"cc(
    void fill(std::vector<at::Tensor> &v);
    void target() {
      std::vector<at::Tensor> v = {torch::randn({2})};
      fill(v);
      point("p");
    })cc");
  EXPECT_EQ(F.at("p", "v"), "unknown");
}

TEST(ProvenanceContainer, RangeForElementHasTheContainersFacts) {
  PointFacts F = analyseTarget(withMesh(R"cc(
    void target() {
      std::vector<at::Tensor> v = {makeDTensor(), makeDTensor()};
      for (const at::Tensor &t : v)
        point("in");
    })cc"));
  EXPECT_EQ(F.at("in", "t"), "dtensor");
}

TEST(ProvenanceContainer, RangeForByReferenceThatRebindsForgetsTheContainer) {
  PointFacts F = analyseTarget(R"cc(
    at::Tensor external();
    void target() {
      std::vector<at::Tensor> v = {torch::randn({2})};
      std::vector<at::Tensor> w = {torch::randn({2})};
      for (at::Tensor &t : v)
        t = external();
      for (at::Tensor &t : w)
        t.mul_(2);
      point("after");
    })cc");
  EXPECT_EQ(F.at("after", "v"), "unknown");
  // In-place ops do not rebind: w stays plain.
  EXPECT_EQ(F.at("after", "w"), "plain");
}

TEST(ProvenanceContainer, SanitizeArgsMakesDTensors) {
  PointFacts F = analyseTarget(withMesh(R"cc(
    void target() {
      meshguard::CollectiveGuard guard(mesh);
      std::vector<at::Tensor> in = {torch::randn({2})};
      std::vector<at::Tensor> out = guard.sanitize_args(in);
      point("p");
    })cc"));
  EXPECT_EQ(F.at("p", "in"), "plain");
  EXPECT_EQ(F.at("p", "out"), "dtensor");
}

TEST(ProvenanceContainer, TensorListFromATensor) {
  PointFacts F = analyseTarget(R"cc(
    void target() {
      at::Tensor p = torch::randn({2});
      at::TensorList list(p);
      at::Tensor cat = at::cat({p, p});
      point("p");
    })cc");
  EXPECT_EQ(F.at("p", "list"), "plain");
  EXPECT_EQ(F.at("p", "cat"), "plain");
}

} // namespace
} // namespace testing
} // namespace analysis
} // namespace meshguard
