// FSDP-style sharding (FullyShard.h): parameters Shard(0) on the data-
// parallel mesh, gathered for compute, gradients reduce-scattered; the batch
// a Shard(0) DTensor. An MLP trains like one process on the whole batch.

#include <torch/torch.h>

#include "CountingGroup.h"
#include "RankUtil.h"

using namespace meshguard;
using namespace meshguard::testing;

namespace {

struct NetImpl : torch::nn::Module {
  NetImpl() : fc1(register_module("fc1", torch::nn::Linear(6, 10))), fc2(register_module("fc2", torch::nn::Linear(10, 3))) {}
  at::Tensor forward(const at::Tensor& x) {
    return fc2(at::relu(fc1(x)));
  }
  torch::nn::Linear fc1, fc2;
};
TORCH_MODULE(Net);

} // namespace

TEST(FullyShard, MlpTrainsLikeOneProcess) {
  std::vector<c10::intrusive_ptr<CountingGroup>> counters;
  auto mesh = counting_mesh(world_mesh(), counters);
  torch::manual_seed(4);
  Net model, ref;
  {
    torch::NoGradGuard no_grad;
    for (size_t i = 0; i < ref->parameters().size(); ++i) {
      ref->parameters()[i].copy_(model->parameters()[i]);
    }
  }
  fully_shard(*model, mesh);
  for (const auto& p : model->parameters()) {
    EXPECT_EQ(*placements_of(p), (Placements{Shard{0}}));
  }
  // An uneven batch: 2 * world + 1 rows.
  const int64_t batch = 2 * world_size() + 1;
  at::Tensor x = torch::randn({batch, 6}), y = torch::randn({batch, 3});
  at::Tensor xd = distribute_tensor(x, mesh, {Shard{0}}), yd = distribute_tensor(y, mesh, {Shard{0}});
  auto opts = torch::optim::AdamOptions(0.01);
  torch::optim::Adam opt(model->parameters(), opts), ref_opt(ref->parameters(), opts);
  int64_t forward = 0, backward = 0, optimizer = 0;
  for (int step = 0; step < 30; ++step) {
    ref_opt.zero_grad();
    at::Tensor ref_loss = torch::mse_loss(ref->forward(x), y);
    ref_loss.backward();
    ref_opt.step();

    counters[0]->reset();
    opt.zero_grad();
    at::Tensor loss = torch::mse_loss(fully_sharded_forward(model, xd), yd);
    forward = counters[0]->total();
    loss.backward();
    backward = counters[0]->total() - forward;
    opt.step();
    optimizer = counters[0]->total() - forward - backward;
    EXPECT_NEAR(full_tensor(loss).item<float>(), ref_loss.item<float>(), 1e-5) << "step " << step;
  }
  // Forward: one all-gather per parameter; the optimizer: none (parameters,
  // gradients and Adam state are all Shard(0)). Backward: the minimum is one
  // reduce-scatter per gradient (4); 5 are measured on 2 ranks, the fifth is
  // not identified yet (docs/runtime/parallel.md): bounded here so that a
  // regression shows.
  EXPECT_EQ(forward, 4);
  EXPECT_GE(backward, 4);
  EXPECT_LE(backward, 5);
  EXPECT_EQ(optimizer, 0);
  std::printf("fully_shard MLP collectives per step: forward %lld, backward %lld, optimizer %lld\n",
              static_cast<long long>(forward), static_cast<long long>(backward), static_cast<long long>(optimizer));
  for (const auto& p : model->parameters()) {
    EXPECT_EQ(*placements_of(p), (Placements{Shard{0}}));
    EXPECT_EQ(*placements_of(p.grad()), (Placements{Shard{0}}));
  }
  for (size_t i = 0; i < ref->parameters().size(); ++i) {
    EXPECT_TRUE(at::allclose(full_tensor(model->parameters()[i]), ref->parameters()[i].detach(), 1e-5, 1e-6));
  }
}

TEST(FullyShard, BadInput) {
  auto mesh = world_mesh();
  Net model;
  fully_shard(*model, mesh);
  MG_EXPECT_THROW_WITH(fully_shard(*model, mesh), PlacementError, "already is a DTensor");
}
