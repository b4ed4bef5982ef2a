// The rank side of MultiRankCuda.*: one rank per GPU over NCCL. The driver
// runs it only with NCCL and enough GPUs (NCCL refuses two ranks on one).

#include <gtest/gtest.h>

#include "RankUtil.h"

using namespace meshguard;
using namespace meshguard::testing;

TEST(CudaRank, CollectivesAcrossGpus) {
  auto mesh = init_device_mesh("cuda", {world_size()});
  const auto dev = mesh.device();
  EXPECT_EQ(dev.index(), env_int("LOCAL_RANK"));
  const int64_t n = world_size();
  const double r = static_cast<double>(rank());

  at::Tensor full = full_of({2 * n + 1, 3}, 0).to(dev);
  at::Tensor dt = distribute_tensor(full, mesh, {Shard{0}});
  EXPECT_TRUE(at::equal(full_tensor(dt).cpu(), full.cpu()));
  EXPECT_TRUE(
      at::equal(to_local(redistribute(dt, {Replicate{}})).cpu(), full.cpu()));

  at::Tensor mine = at::full({5}, r + 1, at::TensorOptions().device(dev));
  guarded::all_reduce_({mine}, mesh, ReduceOp::SUM);
  const int64_t sum = n * (n + 1) / 2; // 1 + ... + n, exact in integers
  EXPECT_TRUE(at::equal(mine.cpu(), at::full({5}, static_cast<double>(sum))));

  at::Tensor from_root = at::full({5}, r, at::TensorOptions().device(dev));
  guarded::broadcast_({from_root}, mesh, 0);
  EXPECT_TRUE(at::equal(from_root.cpu(), at::zeros({5})));

  at::Tensor partial = from_local(
      at::full({4}, r, at::TensorOptions().device(dev)),
      mesh,
      {Partial{ReduceOp::MAX}});
  dist::all_reduce_({partial}, ReduceOp::MAX);
  EXPECT_TRUE(at::equal(
      to_local(partial).cpu(), at::full({4}, static_cast<double>(n - 1))));
}
