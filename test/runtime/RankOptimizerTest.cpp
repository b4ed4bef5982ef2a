// Optimizer steps on Shard(0) DTensor parameters run on the local shards
// with no communication (their state is Shard(0) too) and equal one
// process's steps on the full tensors: SGD with momentum, Adam, AdamW.

#include <torch/torch.h>

#include "CountingGroup.h"
#include "RankUtil.h"

using namespace meshguard;
using namespace meshguard::testing;

namespace {

template <typename Optimizer, typename Options>
void check_local_steps(const Options& options, const char* what) {
  SCOPED_TRACE(what);
  std::vector<c10::intrusive_ptr<CountingGroup>> counters;
  auto mesh = counting_mesh(world_mesh(), counters);
  const int64_t w = world_size();
  torch::manual_seed(3);
  // Even, uneven and fewer rows than ranks.
  std::vector<at::Tensor> init = {
      torch::randn({2 * w, 3}),
      torch::randn({2 * w + 1}),
      torch::randn({1, 2})};
  std::vector<at::Tensor> ref, params;
  for (const auto& t : init) {
    ref.push_back(t.clone().requires_grad_());
    params.push_back(distribute_tensor(t, mesh, {Shard{0}}).requires_grad_());
  }
  Optimizer ref_opt(ref, options), opt(params, options);
  for (int step = 0; step < 5; ++step) {
    std::vector<at::Tensor> grads;
    grads.reserve(init.size());
    for (const auto& t : init) {
      grads.push_back(torch::randn(t.sizes()));
    }
    for (size_t i = 0; i < init.size(); ++i) {
      ref[i].mutable_grad() = grads[i].clone();
      params[i].mutable_grad() = distribute_tensor(grads[i], mesh, {Shard{0}});
    }
    ref_opt.step();
    for (const auto& c : counters) {
      c->reset();
    }
    opt.step();
    for (const auto& c : counters) {
      EXPECT_EQ(c->total(), 0)
          << "step " << step << ": the optimizer communicated";
    }
  }
  for (size_t i = 0; i < init.size(); ++i) {
    EXPECT_EQ(*placements_of(params[i]), (Placements{Shard{0}}))
        << "param " << i;
    EXPECT_TRUE(
        at::allclose(full_tensor(params[i]), ref[i].detach(), 1e-5, 1e-6))
        << "param " << i;
  }
}

} // namespace

TEST(Optimizers, StepsOnShardedParametersAreLocal) {
  check_local_steps<torch::optim::SGD>(
      torch::optim::SGDOptions(0.1).momentum(0.9).weight_decay(0.01), "SGD");
  check_local_steps<torch::optim::Adam>(
      torch::optim::AdamOptions(0.01).weight_decay(0.01), "Adam");
  check_local_steps<torch::optim::AdamW>(
      torch::optim::AdamWOptions(0.01).weight_decay(0.1), "AdamW");
}
