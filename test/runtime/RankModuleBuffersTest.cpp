// distribute_module replicates buffers, as PyTorch's does: BatchNorm's
// running statistics become Replicate DTensors, training steps on a
// batch-sharded input update them as one process's steps do, and
// evaluation normalises with them.

#include <torch/torch.h>

#include "RankUtil.h"

using namespace meshguard;
using namespace meshguard::testing;

TEST(ModuleBuffers, BatchNormStatisticsAreReplicatedAndTrained) {
  auto mesh = world_mesh();
  torch::manual_seed(0);
  torch::nn::Sequential ref(
      torch::nn::Conv2d(torch::nn::Conv2dOptions(3, 4, 3).padding(1)),
      torch::nn::BatchNorm2d(4),
      torch::nn::ReLU());
  auto model =
      std::dynamic_pointer_cast<torch::nn::SequentialImpl>(ref->clone());
  distribute_module(*model, mesh);
  const auto buffers = model->named_buffers();
  ASSERT_EQ(
      buffers.size(), 3u); // running_mean, running_var, num_batches_tracked
  for (const auto& b : buffers) {
    ASSERT_TRUE(is_dtensor(b.value())) << b.key();
    EXPECT_EQ(*placements_of(b.value()), (Placements{Replicate{}})) << b.key();
  }
  auto* bn = model->ptr(1)->as<torch::nn::BatchNorm2dImpl>();
  auto* ref_bn = ref->ptr(1)->as<torch::nn::BatchNorm2dImpl>();
  EXPECT_TRUE(is_dtensor(bn->running_mean)); // the member forward() reads
  for (int step = 0; step < 3; ++step) {
    torch::manual_seed(10 + step); // the same batch on every rank
    auto x = torch::randn({2 * world_size(), 3, 5, 5});
    auto expected = ref->forward(x);
    auto y = model->forward(distribute_tensor(x, mesh, {Shard{0}}));
    EXPECT_TRUE(at::allclose(full_tensor(y), expected, 1e-5, 1e-5))
        << "step " << step;
  }
  EXPECT_TRUE(at::allclose(
      full_tensor(bn->running_mean), ref_bn->running_mean, 1e-5, 1e-6));
  EXPECT_TRUE(at::allclose(
      full_tensor(bn->running_var), ref_bn->running_var, 1e-5, 1e-6));
  EXPECT_EQ(full_tensor(bn->num_batches_tracked).item<int64_t>(), 3);
  ref->eval();
  model->eval();
  auto x = torch::randn({2 * world_size(), 3, 5, 5});
  EXPECT_TRUE(at::allclose(
      full_tensor(model->forward(distribute_tensor(x, mesh, {Shard{0}}))),
      ref->forward(x),
      1e-5,
      1e-5));

  // With a partition_fn the buffers are replicated too (PyTorch replicates
  // whatever its partition_fn left plain).
  torch::nn::BatchNorm1d norm(6);
  distribute_module(
      *norm,
      mesh,
      [](const std::string&, const at::Tensor&, const DeviceMesh& m) {
        return Placements(m.ndim(), Shard{0});
      });
  EXPECT_EQ(*placements_of(norm->weight), (Placements{Shard{0}}));
  EXPECT_EQ(*placements_of(norm->running_var), (Placements{Replicate{}}));
}
