//===--- ProvenanceModuleTest.cpp - The model on torch::nn modules --------===//
//
// Module facts (a module's parameters are DTensors when distribute_module
// was called on it): construction, distribute_module, parameters(),
// copies of holders, aliases, make_shared, calls that may distribute.
//
//===----------------------------------------------------------------------===//

#include "ModelTesting.h"
#include "gtest/gtest.h"

namespace meshguard {
namespace analysis {
namespace testing {
namespace {

const char *const Net = R"cc(
meshguard::DeviceMesh mesh("cpu", {0, 1});
struct NetImpl : torch::nn::Module {
  NetImpl() : fc(2, 2) {}
  torch::nn::Linear fc;
};
)cc";

std::string withNet(const std::string &Body) { return Net + Body; }

TEST(ProvenanceModule, NewModuleHasPlainParameters) {
  PointFacts F = analyseTarget(withNet(R"cc(
    void target() {
      NetImpl net;
      torch::nn::Linear lin(2, 2);
      std::vector<at::Tensor> params = net.parameters();
      point("p");
    })cc"));
  EXPECT_EQ(F.at("p", "net"), "plain");
  EXPECT_EQ(F.at("p", "lin"), "plain");
  EXPECT_EQ(F.at("p", "params"), "plain");
}

TEST(ProvenanceModule, DistributeModuleMakesDTensorParameters) {
  PointFacts F = analyseTarget(withNet(R"cc(
    void target() {
      NetImpl net;
      meshguard::distribute_module(net, mesh);
      std::vector<at::Tensor> params = net.parameters();
      point("p");
    })cc"));
  EXPECT_EQ(F.at("p", "net"), "dtensor");
  EXPECT_EQ(F.at("p", "params"), "dtensor");
}

TEST(ProvenanceModule, DistributingThroughAHolder) {
  PointFacts F = analyseTarget(withNet(R"cc(
    void target() {
      torch::nn::Linear lin(2, 2);
      meshguard::distribute_module(*lin, mesh);
      std::vector<at::Tensor> params = lin->parameters();
      point("p");
    })cc"));
  EXPECT_EQ(F.at("p", "lin"), "dtensor");
  EXPECT_EQ(F.at("p", "params"), "dtensor");
}

TEST(ProvenanceModule, ModuleParameterIsUnknown) {
  PointFacts F = analyseTarget(withNet(R"cc(
    void target(NetImpl &net) {
      std::vector<at::Tensor> params = net.parameters();
      point("p");
    })cc"));
  EXPECT_EQ(F.at("p", "params"), "unknown");
}

TEST(ProvenanceModule, UnknownCallGivenTheModuleMayDistributeIt) {
  PointFacts F = analyseTarget(withNet(R"cc(
    void shard(torch::nn::Module &m);
    void target() {
      NetImpl net;
      NetImpl other;
      shard(net);
      other.train();
      point("p");
    })cc"));
  EXPECT_EQ(F.at("p", "net"), "unknown");
  // train() is an accessor: it does not distribute.
  EXPECT_EQ(F.at("p", "other"), "plain");
}

TEST(ProvenanceModule, SummaryOfAFunctionThatLeavesTheModule) {
  PointFacts F = analyseTarget(withNet(R"cc(
    int count(torch::nn::Module &m) { return 1; }
    void target() {
      NetImpl net;
      count(net);
      point("p");
    })cc"));
  EXPECT_EQ(F.at("p", "net"), "plain");
}

TEST(ProvenanceModule, CopiedHolderSharesItsModule) {
  PointFacts F = analyseTarget(withNet(R"cc(
    void target() {
      torch::nn::Linear lin(2, 2);
      torch::nn::Linear copy = lin;
      point("p");
    })cc"));
  EXPECT_EQ(F.at("p", "lin"), "unknown");
  EXPECT_EQ(F.at("p", "copy"), "unknown");
}

TEST(ProvenanceModule, AssignedHoldersShareTheirModule) {
  PointFacts F = analyseTarget(withNet(R"cc(
    void target() {
      torch::nn::Linear a(2, 2);
      torch::nn::Linear b(2, 2);
      a = b;
      point("p");
    })cc"));
  EXPECT_EQ(F.at("p", "a"), "unknown");
  EXPECT_EQ(F.at("p", "b"), "unknown");
}

TEST(ProvenanceModule, MutableAliasForgetsTheModule) {
  PointFacts F = analyseTarget(withNet(R"cc(
    void target() {
      torch::nn::Linear lin(2, 2);
      torch::nn::Linear kept(2, 2);
      torch::nn::Module &base = *lin;
      const torch::nn::Module &view = *kept;
      point("p");
    })cc"));
  EXPECT_EQ(F.at("p", "lin"), "unknown");
  EXPECT_EQ(F.at("p", "kept"), "plain");
}

TEST(ProvenanceModule, MakeSharedMakesANewModule) {
  PointFacts F = analyseTarget(withNet(R"cc(
    void target() {
      std::shared_ptr<NetImpl> net = std::make_shared<NetImpl>();
      point("p");
    })cc"));
  EXPECT_EQ(F.at("p", "net"), "plain");
}

TEST(ProvenanceModule, ConstructorThatMakesDTensorsIsUnknown) {
  PointFacts F = analyseTarget(withNet(R"cc(
    struct ShardedImpl : torch::nn::Module {
      ShardedImpl() {
        w = register_parameter(
            "w", meshguard::distribute_tensor(torch::randn({2}), mesh,
                                              {meshguard::Shard{0}}));
      }
      at::Tensor w;
    };
    void target() {
      ShardedImpl s;
      point("p");
    })cc"));
  EXPECT_EQ(F.at("p", "s"), "unknown");
}

} // namespace
} // namespace testing
} // namespace analysis
} // namespace meshguard
