// Rank tests (run under scripts/meshguard-launch by MultiRankTest.cpp): the
// seed's three cases, meshes, the collectives on every placement, the guard,
// and bad input.

#include <unistd.h>
#include <chrono>
#include <limits>

#include <gmock/gmock.h>

#include "RankUtil.h"

using namespace meshguard;
using namespace meshguard::testing;
using ::testing::HasSubstr;
using ::testing::StartsWith;

// Seed case 1: every argument of the broadcast is a plain tensor.
TEST(Seed, AllPlainBroadcastThrows) {
  auto mesh = world_mesh();
  at::Tensor plain = at::ones({4});
  try {
    dist::broadcast_({plain}, 0);
    FAIL() << "expected MeshNotFoundError";
  } catch (const MeshNotFoundError& e) {
    EXPECT_THAT(
        e.what(),
        StartsWith(
            "found no DeviceMesh from dtensor args for c10d.broadcast_.default"));
    EXPECT_THAT(e.what(), HasSubstr("argument 0: a plain at::Tensor [4]"));
    EXPECT_THAT(e.what(), HasSubstr("guarded::broadcast_(tensors, mesh"));
  }
  // Seed case 2's cousin: the plain tensor came from to_local().
  auto dt = distribute_tensor(at::ones({4}), mesh, {Replicate{}});
  const int line = __LINE__ + 1;
  at::Tensor local = to_local(dt);
  try {
    dist::broadcast_({local}, 0);
    FAIL() << "expected MeshNotFoundError";
  } catch (const MeshNotFoundError& e) {
    EXPECT_THAT(
        e.what(),
        StartsWith(
            "found no DeviceMesh from dtensor args for c10d.broadcast_.default"));
    EXPECT_THAT(
        e.what(),
        HasSubstr(
            "to_local() at " + std::string(__FILE__) + ":" +
            std::to_string(line)));
    EXPECT_THAT(e.what(), HasSubstr("pass the DTensor itself"));
  }
  for (const auto& [fn, name] :
       std::vector<std::pair<std::function<void()>, std::string>>{
           {[&] { dist::all_reduce_({plain}, ReduceOp::SUM); },
            "c10d.allreduce_.default"},
           {[&] { dist::all_gather({plain}); }, "c10d.allgather_.default"},
           {[&] { dist::reduce_scatter({plain}); },
            "c10d.reduce_scatter_.default"}}) {
    try {
      fn();
      ADD_FAILURE() << "expected MeshNotFoundError for " << name;
    } catch (const MeshNotFoundError& e) {
      EXPECT_THAT(
          e.what(),
          StartsWith("found no DeviceMesh from dtensor args for " + name));
    }
  }
}

// Seed case 2: a DTensor carries the mesh, so the broadcast runs.
TEST(Seed, DTensorBroadcastPasses) {
  auto mesh = world_mesh();
  at::Tensor local = at::full({3}, static_cast<float>(rank() + 1));
  at::Tensor dt = from_local(local, mesh, {Replicate{}});
  dist::broadcast_({dt}, 0);
  EXPECT_TRUE(at::equal(to_local(dt), at::full({3}, 1.0f)));
  EXPECT_TRUE(at::equal(
      local,
      at::full({3}, 1.0f))); // shares storage, as from_local does in PyTorch
  const int64_t last = world_size() - 1;
  dist::broadcast_(
      {dt, from_local(at::full({2}, float(rank())), mesh, {Replicate{}})},
      last);
  EXPECT_TRUE(at::equal(to_local(dt), at::full({3}, 1.0f)));
}

// Seed case 3: the guard promotes a plain tensor to Replicate on its mesh.
TEST(Seed, GuardPromotesPlainTensor) {
  auto mesh = world_mesh();
  at::Tensor plain = at::full({5}, static_cast<float>(10 * (rank() + 1)));
  guarded::broadcast_({plain}, mesh, 0);
  EXPECT_TRUE(at::equal(plain, at::full({5}, 10.0f)));

  CollectiveGuard guard(mesh);
  auto promoted = guard.sanitize_args(
      {at::ones({2}), distribute_tensor(at::ones({2}), mesh, {Replicate{}})});
  ASSERT_EQ(promoted.size(), 2u);
  EXPECT_TRUE(is_dtensor(promoted[0]));
  EXPECT_EQ(*mesh_of(promoted[0]), mesh);
  EXPECT_TRUE(is_replicate(placements_of(promoted[0])->at(0)));
  EXPECT_EQ(*guard.require_mesh(promoted), mesh);
  EXPECT_FALSE(guard.require_mesh({at::ones({1})}).has_value());

  at::Tensor grad = at::full({4}, static_cast<float>(rank() + 1));
  guarded::all_reduce_({grad}, mesh, ReduceOp::SUM);
  const auto w = static_cast<float>(world_size());
  const float total = w * (w + 1) / 2.0f;
  EXPECT_TRUE(at::equal(grad, at::full({4}, total)));

  at::Tensor value = at::full({2}, float(rank()));
  guard.call_collective(
      {value}, [](const std::vector<at::Tensor>& args, const DeviceMesh&) {
        dist::broadcast_(args, 0);
      });
  EXPECT_TRUE(at::equal(value, at::zeros({2})));

  CollectiveGuard strict(mesh, GuardPolicy::strict);
  MG_EXPECT_THROW_WITH(
      strict.broadcast_({at::ones({2})}, 0),
      NotDistributedError,
      "argument 0 is a plain at::Tensor");
}

TEST(Mesh, OneDimensional) {
  auto mesh = world_mesh();
  EXPECT_EQ(mesh.ndim(), 1);
  EXPECT_EQ(mesh.shape(), std::vector<int64_t>{world_size()});
  EXPECT_EQ(mesh.size(0), world_size());
  EXPECT_EQ(mesh.get_rank(), rank());
  EXPECT_EQ(mesh.coordinate(), std::vector<int64_t>{rank()});
  EXPECT_EQ(mesh.device_type(), "cpu");
  EXPECT_EQ(mesh.get_group(0)->getSize(), world_size());
  // The copy constructor is what is tested here.
  // NOLINTNEXTLINE(performance-unnecessary-copy-initialization)
  DeviceMesh copy = mesh;
  EXPECT_EQ(copy, mesh);
  EXPECT_THAT(mesh.to_string(), StartsWith("DeviceMesh('cpu', [0, 1"));
}

TEST(Mesh, TwoByTwo) {
  ASSERT_EQ(world_size(), 4);
  auto mesh = init_device_mesh("cpu", {2, 2});
  const int64_t r = rank();
  EXPECT_EQ(mesh.coordinate(), (std::vector<int64_t>{r / 2, r % 2}));
  EXPECT_EQ(
      mesh.group_ranks(1),
      (std::vector<int64_t>{2 * (r / 2), 2 * (r / 2) + 1}));
  EXPECT_EQ(mesh.group_ranks(0), (std::vector<int64_t>{r % 2, r % 2 + 2}));
  EXPECT_EQ(mesh.to_string(), "DeviceMesh('cpu', [[0, 1], [2, 3]])");
  // dim-1 groups are {0,1} and {2,3}: a Partial sum over dim 1 adds pairs.
  auto dt = from_local(at::full({2}, float(r)), mesh, {Replicate{}, Partial{}});
  dist::all_reduce_({dt}, ReduceOp::SUM, 1);
  const float expect1 = (r < 2) ? 1.0f : 5.0f;
  EXPECT_TRUE(at::equal(to_local(dt), at::full({2}, expect1)));
  EXPECT_TRUE(is_replicate(placements_of(dt)->at(1)));
  auto dt0 =
      from_local(at::full({2}, float(r)), mesh, {Partial{}, Replicate{}});
  dist::all_reduce_({dt0}, ReduceOp::SUM, 0);
  EXPECT_TRUE(
      at::equal(to_local(dt0), at::full({2}, float(r % 2 + r % 2 + 2))));
}

TEST(Collectives, AllReduceOnPlacements) {
  auto mesh = world_mesh();
  const auto n = static_cast<float>(world_size());
  auto partial =
      from_local(at::full({3}, float(rank() + 1)), mesh, {Partial{}});
  dist::all_reduce_({partial}, ReduceOp::SUM);
  EXPECT_TRUE(at::equal(to_local(partial), at::full({3}, n * (n + 1) / 2)));
  EXPECT_TRUE(is_replicate(placements_of(partial)->at(0)));

  auto avg = from_local(
      at::full({3}, float(rank() + 1)), mesh, {Partial{ReduceOp::AVG}});
  dist::all_reduce_({avg}, ReduceOp::AVG);
  EXPECT_TRUE(at::allclose(to_local(avg), at::full({3}, (n + 1) / 2)));

  auto mx =
      from_local(at::full({3}, float(rank())), mesh, {Partial{ReduceOp::MAX}});
  dist::all_reduce_({mx}, ReduceOp::MAX);
  EXPECT_TRUE(at::equal(to_local(mx), at::full({3}, n - 1)));

  auto rep = distribute_tensor(at::ones({2}), mesh, {Replicate{}});
  dist::all_reduce_(
      {rep}, ReduceOp::SUM); // c10d semantics on replicas: their sum
  EXPECT_TRUE(at::equal(to_local(rep), at::full({2}, n)));

  auto shard = distribute_tensor(at::ones({8}), mesh, {Shard{0}});
  MG_EXPECT_THROW_WITH(
      dist::all_reduce_({shard}, ReduceOp::SUM),
      PlacementError,
      "Shard(dim=0)");
  auto psum = from_local(at::ones({2}), mesh, {Partial{}});
  MG_EXPECT_THROW_WITH(
      dist::all_reduce_({psum}, ReduceOp::MAX),
      PlacementError,
      "would not give its value");
}

TEST(Collectives, AllGatherUnevenShards) {
  auto mesh = world_mesh();
  for (int64_t n : {5, 7, 1, 8}) {
    at::Tensor full = at::arange(n * 2, at::kFloat).reshape({n, 2});
    auto dt = distribute_tensor(full, mesh, {Shard{0}});
    auto expected_local = full.chunk(world_size(), 0);
    const auto idx = static_cast<size_t>(rank());
    const int64_t local_rows =
        idx < expected_local.size() ? expected_local[idx].size(0) : 0;
    EXPECT_EQ(to_local(dt).size(0), local_rows) << "n=" << n;
    auto gathered = dist::all_gather({dt});
    ASSERT_EQ(gathered.size(), 1u);
    EXPECT_TRUE(is_replicate(placements_of(gathered[0])->at(0)));
    EXPECT_TRUE(at::equal(to_local(gathered[0]), full)) << "n=" << n;
  }
  auto rep = distribute_tensor(at::ones({3}), mesh, {Replicate{}});
  EXPECT_TRUE(at::equal(to_local(dist::all_gather({rep})[0]), at::ones({3})));
  auto partial = from_local(at::ones({3}), mesh, {Partial{}});
  MG_EXPECT_THROW_WITH(
      dist::all_gather({partial}), PlacementError, "all_reduce_");
}

TEST(Collectives, ReduceScatterPartial) {
  auto mesh = world_mesh();
  const int64_t n = 2 * world_size() + 1; // uneven
  at::Tensor contribution = at::arange(n, at::kFloat).add(rank());
  auto dt = from_local(contribution, mesh, {Partial{}});
  auto out = dist::reduce_scatter({dt}, ReduceOp::SUM, 0);
  at::Tensor expected_full = at::zeros({n});
  for (int64_t r = 0; r < world_size(); ++r) {
    expected_full += at::arange(n, at::kFloat).add(r);
  }
  EXPECT_TRUE(is_shard(placements_of(out[0])->at(0), 0));
  // torch.chunk: pieces of ceil(n / k); trailing ranks may get nothing.
  const int64_t cs = (n + world_size() - 1) / world_size();
  const int64_t begin = std::min(n, cs * rank());
  EXPECT_TRUE(at::equal(
      to_local(out[0]),
      expected_full.narrow(0, begin, std::min(n, begin + cs) - begin)));
  EXPECT_TRUE(at::equal(full_tensor(out[0]), expected_full));
  auto rep = distribute_tensor(at::ones({4}), mesh, {Replicate{}});
  MG_EXPECT_THROW_WITH(
      dist::reduce_scatter({rep}), PlacementError, "needs a Partial tensor");
}

TEST(BadInput, MeshMismatch) {
  ASSERT_EQ(world_size(), 2);
  auto a = world_mesh();
  auto b = init_device_mesh("cpu", {1, 2});
  ASSERT_NE(a, b);
  auto x = distribute_tensor(at::ones({2}), a, {Replicate{}});
  auto y = distribute_tensor(at::ones({2}), b, {Replicate{}, Replicate{}});
  MG_EXPECT_THROW_WITH(
      dist::all_reduce_({x, y}, ReduceOp::SUM),
      MeshMismatchError,
      "different meshes");
  try {
    dist::broadcast_({x, y}, 0);
    FAIL();
  } catch (const MeshMismatchError& e) {
    EXPECT_THAT(e.what(), HasSubstr(a.to_string()));
    EXPECT_THAT(e.what(), HasSubstr(b.to_string()));
  }
  MG_EXPECT_THROW_WITH(
      CollectiveGuard(a).require_mesh({y}),
      MeshMismatchError,
      "the guard's mesh is");
  MG_EXPECT_THROW_WITH(
      guarded::broadcast_({y}, a, 0), MeshMismatchError, b.to_string());
  MG_EXPECT_THROW_WITH(x + y, c10::Error, "different meshes");
}

TEST(BadInput, PlacementsDtypesLayouts) {
  auto mesh = world_mesh();
  MG_EXPECT_THROW_WITH(
      distribute_tensor(at::ones({2, 2}), mesh, {Shard{2}}),
      PlacementError,
      "Shard(dim=2) is out of range");
  MG_EXPECT_THROW_WITH(
      distribute_tensor(at::ones({2}), mesh, {Replicate{}, Replicate{}}),
      PlacementError,
      "one placement per mesh dimension");
  // Shard(-1) is the last dim (as in PyTorch); -2 is out of range for 1-d.
  MG_EXPECT_THROW_WITH(
      from_local(at::ones({2}), mesh, {Shard{-2}}),
      PlacementError,
      "out of range");
  auto nc = from_local(at::ones({4, 3}).t(), mesh, {Replicate{}});
  MG_EXPECT_THROW_WITH(
      dist::broadcast_({nc}, 0), PlacementError, "non-contiguous");
  auto ints =
      from_local(at::ones({3}, at::kLong), mesh, {Partial{ReduceOp::AVG}});
  MG_EXPECT_THROW_WITH(
      dist::all_reduce_({ints}, ReduceOp::AVG),
      PlacementError,
      "floating-point");
  auto rep = distribute_tensor(at::ones({2}), mesh, {Replicate{}});
  MG_EXPECT_THROW_WITH(
      dist::broadcast_({rep}, world_size()),
      PlacementError,
      "is not a rank of mesh dim 0");
  MG_EXPECT_THROW_WITH(
      dist::broadcast_({rep}, 0, 1),
      PlacementError,
      "mesh_dim 1 is out of range");
  MG_EXPECT_THROW_WITH(
      dist::broadcast_({rep, at::ones({2})}, 0),
      PlacementError,
      "c10d.broadcast_.default got mixed torch.Tensor and DTensor");
  auto shard = distribute_tensor(at::ones({4}), mesh, {Shard{0}});
  MG_EXPECT_THROW_WITH(
      dist::broadcast_({shard}, 0), PlacementError, "overwrite");
  MG_EXPECT_THROW_WITH(
      redistribute(at::ones({2}), {Replicate{}}),
      PlacementError,
      "plain at::Tensor");
}

// A rank dies after the mesh is up: the survivors' collective must fail
// within the mesh timeout (MESHGUARD_TIMEOUT_S), never hang.
TEST(BadInput, RankDiesMidCollective) {
  auto mesh = world_mesh();
  auto dt = from_local(at::ones({1 << 16}), mesh, {Partial{}});
  if (rank() == world_size() - 1) {
    std::fflush(nullptr);
    ::_exit(3);
  }
  const auto start = std::chrono::steady_clock::now();
  EXPECT_ANY_THROW(dist::all_reduce_({dt}, ReduceOp::SUM));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  EXPECT_LT(seconds, mesh.timeout().count() / 1000.0 + 10.0);
  std::printf(
      "survivor rank %lld got its error after %.2f s\n",
      static_cast<long long>(rank()),
      seconds);
}

TEST(ReplicaCheck, NamesTheRankThatDiffers) {
  auto mesh = world_mesh();
  set_replica_check(true);
  at::Tensor same = at::ones({4});
  CollectiveGuard guard(mesh);
  EXPECT_NO_THROW(guard.sanitize_args({same}));
  at::Tensor differs = at::ones({4}) * (rank() == 1 ? 2.0f : 1.0f);
  MG_EXPECT_THROW_WITH(
      guard.sanitize_args({differs}),
      ReplicaMismatchError,
      "rank 1 hold(s) different values");
  MG_EXPECT_THROW_WITH(
      from_local(differs, mesh, {Replicate{}}, /*run_check=*/true),
      ReplicaMismatchError,
      "rank 1");
  set_replica_check(false);
  EXPECT_NO_THROW(guard.sanitize_args({differs}));
}

TEST(Collectives, OnEachDimOfTwoByTwo) {
  ASSERT_EQ(world_size(), 4);
  auto mesh = init_device_mesh("cpu", {2, 2});
  const int64_t r = rank();
  const auto& c = mesh.coordinate();
  // broadcast_ over dim 1 from group rank 1: each row takes its column-1 rank's
  // value.
  auto rep =
      from_local(at::full({2}, float(r)), mesh, {Replicate{}, Replicate{}});
  dist::broadcast_({rep}, /*src=*/1, /*mesh_dim=*/1);
  EXPECT_TRUE(at::equal(to_local(rep), at::full({2}, float(2 * c[0] + 1))));
  // all_gather over dim 1 of a tensor sharded on both mesh dims.
  at::Tensor full = full_of({6, 4}, 0);
  auto both = distribute_tensor(full, mesh, {Shard{0}, Shard{1}});
  auto gathered = dist::all_gather({both}, 1)[0];
  EXPECT_EQ(*placements_of(gathered), (Placements{Shard{0}, Replicate{}}));
  EXPECT_TRUE(at::equal(to_local(gathered), full.chunk(2, 0)[c[0]]));
  // reduce_scatter over dim 0 of a Partial on dim 0.
  auto partial = from_local(
      at::ones({4, 2}) * float(r + 1), mesh, {Partial{}, Replicate{}});
  auto scattered = dist::reduce_scatter({partial}, ReduceOp::SUM, 0, 0)[0];
  EXPECT_EQ(*placements_of(scattered), (Placements{Shard{0}, Replicate{}}));
  // Column c[1] sums ranks c[1]+1 and c[1]+3.
  EXPECT_TRUE(
      at::equal(to_local(scattered), at::ones({2, 2}) * float(2 * c[1] + 4)));
  // The guard on a 2-d mesh promotes over every dim.
  at::Tensor plain = at::full({3}, float(r));
  guarded::all_reduce_({plain}, mesh, ReduceOp::MAX, 0);
  EXPECT_TRUE(at::equal(plain, at::full({3}, float(2 + c[1]))));
}

TEST(Mesh, FromUserProcessGroups) {
  auto base = world_mesh();
  DeviceMesh mine(
      "cpu", {world_size()}, base.mesh(), {base.get_group(0)}, rank());
  EXPECT_EQ(mine, base);
  EXPECT_EQ(mine.coordinate(), base.coordinate());
  auto dt = from_local(at::full({2}, float(rank() + 1)), mine, {Partial{}});
  dist::all_reduce_({dt}, ReduceOp::SUM);
  const auto n = static_cast<float>(world_size());
  EXPECT_TRUE(at::equal(to_local(dt), at::full({2}, n * (n + 1) / 2)));
  MG_EXPECT_THROW_WITH(
      DeviceMesh(
          "cpu", {1, world_size()}, base.mesh(), {base.get_group(0)}, rank()),
      MeshInitError,
      "one process group per mesh dimension");
  MG_EXPECT_THROW_WITH(
      DeviceMesh(
          "cpu",
          {world_size()},
          base.mesh(),
          {base.get_group(0)},
          world_size() + 5),
      MeshInitError,
      "is not in the mesh");
}

// Replicas that hold the same NaN (and infinities) agree; NaN elsewhere,
// or on one rank only, is a mismatch (the checksum used to be NaN, and
// NaN != NaN failed every NaN replica).
TEST(ReplicaCheck, NaNReplicas) {
  auto mesh = world_mesh();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const bool odd = rank() == world_size() - 1;
  auto check = [&](const at::Tensor& t) {
    (void)from_local(t, mesh, {Replicate{}}, /*run_check=*/true);
  };
  EXPECT_NO_THROW(check(at::tensor({1.0f, nan, 3.0f, inf, -inf})));
  EXPECT_NO_THROW(check(at::full({2, 3}, nan)));
  const std::string who =
      "rank " + std::to_string(world_size() - 1) + " hold(s) different values";
  MG_EXPECT_THROW_WITH(
      check(
          odd ? at::tensor({nan, 2.0f, 3.0f}) : at::tensor({1.0f, nan, 3.0f})),
      ReplicaMismatchError,
      who);
  MG_EXPECT_THROW_WITH(
      check(
          odd ? at::tensor({1.0f, nan, 3.0f}) : at::tensor({1.0f, 2.0f, 3.0f})),
      ReplicaMismatchError,
      who);
  MG_EXPECT_THROW_WITH(
      check(odd ? at::tensor({1.0f, -inf}) : at::tensor({1.0f, inf})),
      ReplicaMismatchError,
      who);
  MG_EXPECT_THROW_WITH(
      check(odd ? at::tensor({nan, inf}) : at::tensor({inf, nan})),
      ReplicaMismatchError,
      who);
}

// Run with MESHGUARD_CHECK_REPLICAS=1 by its driver.
TEST(ReplicaCheck, FromEnvironment) {
  ASSERT_TRUE(replica_check_enabled());
  auto mesh = world_mesh();
  at::Tensor differs =
      at::arange(4, at::kFloat) + (rank() == world_size() - 1 ? 1.0f : 0.0f);
  MG_EXPECT_THROW_WITH(
      guarded::all_gather({differs}, mesh),
      ReplicaMismatchError,
      "rank " + std::to_string(world_size() - 1) + " hold(s) different values");
  // broadcast_ makes replicas agree, so it does not check.
  EXPECT_NO_THROW(guarded::broadcast_({differs}, mesh, 0));
  EXPECT_TRUE(at::equal(differs, at::arange(4, at::kFloat)));
  EXPECT_NO_THROW(guarded::all_gather({differs}, mesh));
}
