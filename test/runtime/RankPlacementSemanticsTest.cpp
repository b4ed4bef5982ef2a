// Rank tests for placement semantics that must match PyTorch's DTensor:
// empty shards, Shard(-1), refused Partial transitions, from_local's
// run_check metadata check, to_local's grad_placements and the DTensor
// factories (run under scripts/meshguard-launch).

#include <gmock/gmock.h>
#include <torch/torch.h>

#include "RankUtil.h"

using namespace meshguard;
using namespace meshguard::testing;

namespace {

// Every rank of `mesh` must hold bit-equal `t` (checked with a collective).
void expect_same_on_all_ranks(const at::Tensor& t, const DeviceMesh& mesh) {
  EXPECT_NO_THROW(check_replicas(t, mesh, "test value"));
}

} // namespace

// Ranks whose shard is empty take part in the all-gather without a
// zero-byte Gloo buffer (which died with SIGFPE).
TEST(EmptyShards, FullTensorAndRedistribute1D) {
  auto mesh = world_mesh();
  at::Tensor empty = at::zeros({0, 3});
  at::Tensor a = distribute_tensor(empty, mesh, {Shard{0}});
  EXPECT_EQ(a.sizes(), empty.sizes());
  EXPECT_EQ(full_tensor(a).sizes(), empty.sizes());
  EXPECT_EQ(full_tensor(redistribute(a, {Shard{1}})).sizes(), empty.sizes());
  at::Tensor p = from_local(at::zeros({0, 3}), mesh, {Partial{}});
  EXPECT_EQ(full_tensor(p).sizes(), empty.sizes());
  // Fewer rows than ranks: the trailing ranks hold nothing.
  at::Tensor full = full_of({1, 3}, 2);
  at::Tensor b = distribute_tensor(full, mesh, {Shard{0}});
  EXPECT_EQ(to_local(b).size(0), rank() == 0 ? 1 : 0);
  EXPECT_TRUE(at::equal(full_tensor(b), full));
  EXPECT_TRUE(at::equal(full_tensor(redistribute(b, {Shard{1}})), full));
}

TEST(EmptyShards, NestedShardsOnTwoByTwo) {
  ASSERT_EQ(world_size(), 4);
  auto mesh = init_device_mesh("cpu", {2, 2});
  at::Tensor full = full_of({1, 3}, 1);
  at::Tensor a = distribute_tensor(full, mesh, {Shard{0}, Shard{0}});
  EXPECT_EQ(to_local(a).size(0), rank() == 0 ? 1 : 0);
  EXPECT_TRUE(at::equal(full_tensor(a), full));
  EXPECT_TRUE(
      at::equal(full_tensor(redistribute(a, {Replicate{}, Shard{0}})), full));
  EXPECT_TRUE(
      at::equal(full_tensor(redistribute(a, {Shard{1}, Shard{0}})), full));
  at::Tensor z =
      distribute_tensor(at::zeros({0, 2}), mesh, {Shard{0}, Shard{1}});
  EXPECT_EQ(full_tensor(z).sizes(), (c10::IntArrayRef{0, 2}));
}

// PyTorch normalises a negative shard dim to dim + ndim.
TEST(PlacementSemantics, NegativeShardDim) {
  auto mesh = world_mesh();
  at::Tensor full = full_of({4, 6}, 0);
  at::Tensor a = distribute_tensor(full, mesh, {Shard{-1}});
  EXPECT_EQ(*placements_of(a), (Placements{Shard{1}}));
  EXPECT_TRUE(at::equal(full_tensor(a), full));
  at::Tensor b =
      redistribute(distribute_tensor(full, mesh, {Replicate{}}), {Shard{-2}});
  EXPECT_EQ(*placements_of(b), (Placements{Shard{0}}));
  at::Tensor c = from_local(at::ones({2, 3}), mesh, {Shard{-1}});
  EXPECT_EQ(*placements_of(c), (Placements{Shard{1}}));
  EXPECT_EQ(c.size(1), 3 * world_size());
  MG_EXPECT_THROW_WITH(
      distribute_tensor(full, mesh, {Shard{-3}}),
      PlacementError,
      "Shard(dim=-3) is out of range");
}

// As in PyTorch: redistributing *to* Partial is internal only; Partial may
// stay the same Partial, or become Replicate/Shard.
TEST(PlacementSemantics, RedistributeToPartialIsRefused) {
  auto mesh = world_mesh();
  at::Tensor full = full_of({4, 2}, 0);
  at::Tensor r = distribute_tensor(full, mesh, {Replicate{}});
  MG_EXPECT_THROW_WITH(
      redistribute(r, {Partial{}}),
      PlacementError,
      "can not redistribute from Replicate() to Partial(sum)");
  at::Tensor s = distribute_tensor(full, mesh, {Shard{0}});
  MG_EXPECT_THROW_WITH(
      redistribute(s, {Partial{ReduceOp::MAX}}),
      PlacementError,
      "for internal use only");
  at::Tensor p = from_local(full, mesh, {Partial{}});
  MG_EXPECT_THROW_WITH(
      redistribute(p, {Partial{ReduceOp::MAX}}),
      PlacementError,
      "from Partial(sum) to Partial(max)");
  EXPECT_EQ(
      *placements_of(redistribute(p, {Partial{}})), (Placements{Partial{}}));
  EXPECT_TRUE(at::allclose(
      full_tensor(redistribute(p, {Shard{0}})), full * world_size()));
}

// PyTorch: "distribute_tensor should be used to distribute leaf tensors".
TEST(PlacementSemantics, DistributeNonLeafRequiringGradIsRefused) {
  auto mesh = world_mesh();
  at::Tensor leaf = at::ones({4, 2}).requires_grad_();
  at::Tensor non_leaf = leaf * 2;
  MG_EXPECT_THROW_WITH(
      distribute_tensor(non_leaf, mesh, {Shard{0}}), PlacementError, "leaf");
  at::Tensor ok = distribute_tensor(leaf, mesh, {Shard{0}});
  EXPECT_TRUE(ok.requires_grad());
  EXPECT_TRUE(ok.is_leaf());
}

// run_check compares dtype (and, without an explicit shape, the local shape)
// across ranks, like PyTorch's check_tensor_meta; every rank raises.
TEST(PlacementSemantics, FromLocalRunCheckComparesMetadata) {
  auto mesh = world_mesh();
  at::Tensor local = at::ones({2, 3}, rank() == 1 ? at::kDouble : at::kFloat);
  MG_EXPECT_THROW_WITH(
      from_local(local, mesh, {Shard{0}}, /*run_check=*/true),
      PlacementError,
      "inconsistent tensor metadata");
  at::Tensor uneven = at::ones({rank() == 0 ? 3 : 2, 3});
  MG_EXPECT_THROW_WITH(
      from_local(uneven, mesh, {Shard{0}}, true), PlacementError, "rank 1");
  // With the global shape given, uneven shards pass.
  std::vector<int64_t> shape{3 + 2 * (world_size() - 1), 3};
  at::Tensor ok = from_local(uneven, mesh, {Shard{0}}, true, shape);
  EXPECT_EQ(ok.size(0), shape[0]);
  EXPECT_NO_THROW(from_local(at::ones({2, 3}), mesh, {Shard{0}}, true));
}

// grad_placements: the gradient of to_local's result is read with these
// placements (here Partial: each rank's local gradient is a partial sum).
TEST(PlacementSemantics, ToLocalGradPlacements) {
  auto mesh = world_mesh();
  at::Tensor w =
      distribute_tensor(at::ones({2, 3}), mesh, {Replicate{}}).requires_grad_();
  (to_local(w, Placements{Partial{}}) * 3).sum().backward();
  ASSERT_TRUE(is_dtensor(w.grad()));
  EXPECT_EQ(*placements_of(w.grad()), (Placements{Partial{}}));
  EXPECT_TRUE(at::allclose(
      full_tensor(w.grad()), at::full({2, 3}, 3.0f * world_size())));
  at::Tensor v =
      distribute_tensor(at::ones({2, 3}), mesh, {Replicate{}}).requires_grad_();
  (to_local(v) * 3).sum().backward();
  EXPECT_EQ(*placements_of(v.grad()), (Placements{Replicate{}}));
  MG_EXPECT_THROW_WITH(
      to_local(w, Placements{Shard{0}, Shard{0}}),
      PlacementError,
      "one placement per mesh");
}

TEST(Factories, OnesZerosFullEmpty) {
  auto mesh = world_mesh();
  at::Tensor o = ones({5, 3}, mesh, {Shard{0}});
  ASSERT_TRUE(is_dtensor(o));
  EXPECT_EQ(o.sizes(), (c10::IntArrayRef{5, 3}));
  EXPECT_EQ(*placements_of(o), (Placements{Shard{0}}));
  const int64_t rows =
      (5 + world_size() - 1) / world_size(); // torch.chunk's chunk size
  EXPECT_EQ(
      to_local(o).size(0),
      std::max<int64_t>(
          0, std::min<int64_t>(5, rows * (rank() + 1)) - rows * rank()));
  EXPECT_TRUE(at::equal(full_tensor(o), at::ones({5, 3})));
  EXPECT_TRUE(at::equal(
      full_tensor(zeros({3, 5}, mesh, {Shard{1}})), at::zeros({3, 5})));
  at::Tensor f = full(
      {2, 2}, 2.5, mesh, {Replicate{}}, at::TensorOptions().dtype(at::kDouble));
  EXPECT_EQ(f.scalar_type(), at::kDouble);
  EXPECT_TRUE(at::equal(to_local(f), at::full({2, 2}, 2.5, at::kDouble)));
  at::Tensor e = empty({1, 4}, mesh, {Shard{0}});
  EXPECT_EQ(e.sizes(), (c10::IntArrayRef{1, 4}));
  EXPECT_EQ(to_local(e).size(0), rank() == 0 ? 1 : 0);
  at::Tensor g =
      ones({4}, mesh, {Shard{-1}}, at::TensorOptions().requires_grad(true));
  EXPECT_TRUE(g.requires_grad());
  EXPECT_TRUE(g.is_leaf());
  MG_EXPECT_THROW_WITH(ones({4}, mesh, {Partial{}}), PlacementError, "Partial");
}

// Random factories: one global random tensor; Replicate ranks hold the same
// values, shards are the chunks of that global tensor.
TEST(Factories, RandomValuesAreOneGlobalTensor) {
  auto mesh = world_mesh();
  torch::manual_seed(100 + rank()); // ranks' own generators differ on purpose
  at::Tensor r = rand({6, 4}, mesh, {Replicate{}});
  expect_same_on_all_ranks(to_local(r), mesh);
  EXPECT_TRUE(
      (to_local(r) >= 0).all().item<bool>() &&
      (to_local(r) < 1).all().item<bool>());
  at::Tensor s = randn({7, 3}, mesh, {Shard{0}});
  at::Tensor whole = full_tensor(s);
  EXPECT_TRUE(at::equal(to_local(s), whole.chunk(world_size(), 0)[rank()]));
  // Different rows per shard: not the same draw repeated on every rank.
  EXPECT_FALSE(at::equal(whole.narrow(0, 0, 3), whole.narrow(0, 4, 3)));
}

// dtensor-partial-local-use's round trip at run time (docs/checks/
// dtensor-partial-local-use.md): the sum of a row-sharded tensor is Partial;
// its to_local() is this rank's part of the sum (the check's warning), its
// full_tensor() the sum (the check's fix-it), on every rank.
TEST(PartialLocal, ShareIsNotTheValue) {
  auto mesh = world_mesh();
  const int64_t rows = 2 * world_size();
  at::Tensor full = full_of({rows, 3}, 1);
  at::Tensor mine = full.narrow(0, 2 * rank(), 2);
  at::Tensor squares = from_local(mine.pow(2), mesh, {Shard{0}});
  at::Tensor sse = squares.sum();
  ASSERT_TRUE(is_partial(placements_of(sse)->at(0)));
  const double expected = full.pow(2).sum().item<double>();
  // The unfixed program: each rank its own number, none of them the sum.
  const double share = to_local(sse).item<double>();
  EXPECT_DOUBLE_EQ(share, mine.pow(2).sum().item<double>());
  EXPECT_NE(share, expected);
  // The fixed one.
  EXPECT_DOUBLE_EQ(full_tensor(sse).item<double>(), expected);
  expect_same_on_all_ranks(full_tensor(sse), mesh);
  // mm of Shard(1) x Shard(0): a Partial product, the same story.
  at::Tensor a = full_of({rows, rows}, 1), b = full_of({rows, rows}, 2);
  at::Tensor product = distribute_tensor(a, mesh, {Shard{1}})
                           .mm(distribute_tensor(b, mesh, {Shard{0}}));
  ASSERT_TRUE(is_partial(placements_of(product)->at(0)));
  EXPECT_FALSE(at::allclose(to_local(product), a.mm(b)));
  EXPECT_TRUE(at::allclose(full_tensor(product), a.mm(b)));
}

// dtensor-op-without-sharding-rule's round trip at run time: trace has no
// rule; on a Shard(0) operand the runtime throws, naming the op; the
// fix-it's redistribute to Replicate runs it on the full tensor.
TEST(OpWithoutRule, ReplicateFirstRuns) {
  auto mesh = world_mesh();
  at::Tensor full = full_of({2 * world_size(), 3}, 1);
  at::Tensor x = distribute_tensor(full, mesh, {Shard{0}});
  MG_EXPECT_THROW_WITH(
      x.trace(), c10::Error, "no sharding rule for DTensor operands");
  at::Tensor fixed = redistribute(x, {Replicate{}}).trace();
  EXPECT_TRUE(at::equal(to_local(fixed), full.trace()));
}

// dtensor-unverified-replicate's round trip at run time: a tensor that
// differs per rank called Replicate gives each rank its own "global" value
// (full_tensor is a no-op on Replicate), silently; with the fix-it's
// run_check=true, from_local throws naming the ranks that differ.
TEST(UnverifiedReplicate, RunCheckCatchesIt) {
  auto mesh = world_mesh();
  at::Tensor mine = full_of({4}, 1) * (rank() + 1);
  at::Tensor claimed = from_local(mine, mesh, {Replicate{}});
  EXPECT_TRUE(at::equal(full_tensor(claimed), mine)); // each rank its own
  MG_EXPECT_THROW_WITH(
      from_local(mine, mesh, {Replicate{}}, /*run_check=*/true),
      ReplicaMismatchError,
      "hold(s) different values than rank");
}

// dtensor-mixed-meshes at run time: a DTensor of the 1-D world mesh and one
// of a 2-D mesh meet in one op; the runtime throws, naming both meshes.
// (Two meshes of the same shape are equal, as in PyTorch: no error.)
TEST(MixedMeshes, OpThrowsNamingBoth) {
  ASSERT_EQ(world_size(), 4);
  auto dense = world_mesh();
  auto expert = init_device_mesh("cpu", {2, 2});
  at::Tensor w = distribute_tensor(full_of({4, 4}, 1), dense, {Shard{0}});
  at::Tensor e =
      distribute_tensor(full_of({4, 4}, 2), expert, {Replicate{}, Shard{0}});
  MG_EXPECT_THROW_WITH(w + e, c10::Error, "live on different meshes");
  auto same = init_device_mesh("cpu", {4});
  at::Tensor v = distribute_tensor(full_of({4, 4}, 3), same, {Shard{0}});
  EXPECT_TRUE(at::allclose(
      full_tensor(w + v), full_of({4, 4}, 1) + full_of({4, 4}, 3)));
}
