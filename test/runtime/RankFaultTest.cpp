// Rank tests for faults that used to kill or hang a rank (issue #17): a
// collective whose tensors differ in size across ranks must be an error on
// every rank, never std::terminate (run under scripts/meshguard-launch).

#include <chrono>
#include <cstdlib>

#include <gmock/gmock.h>

#include "RankUtil.h"

using namespace meshguard;
using namespace meshguard::testing;
using ::testing::HasSubstr;

namespace {

// 4 elements on rank 0, 1000 on the others: the shape of the report.
int64_t uneven_numel() {
  return rank() == 0 ? 4 : 1000;
}

// The rank that sees both sizes names them; every rank gets an error.
void expect_size_error(
    const std::function<void()>& collective,
    const char* what) {
  SCOPED_TRACE(what);
  try {
    collective();
    ADD_FAILURE() << "expected an error from " << what;
  } catch (const CollectiveMismatchError& e) {
    EXPECT_THAT(e.what(), HasSubstr("differ"));
    std::printf("rank %lld: %s\n", static_cast<long long>(rank()), e.what());
  }
}

} // namespace

TEST(Fault, AllReduceSizesDiffer) {
  auto mesh = world_mesh();
  auto dt = from_local(at::ones({uneven_numel()}), mesh, {Partial{}});
  expect_size_error(
      [&] { dist::all_reduce_({dt}, ReduceOp::SUM); }, "all_reduce_");
  // The mesh still works afterwards.
  auto ok = from_local(at::ones({3}), mesh, {Partial{}});
  dist::all_reduce_({ok}, ReduceOp::SUM);
  EXPECT_TRUE(at::equal(to_local(ok), at::full({3}, float(world_size()))));
}

TEST(Fault, BroadcastSizesDiffer) {
  auto mesh = world_mesh();
  auto dt = from_local(at::ones({uneven_numel()}), mesh, {Replicate{}});
  expect_size_error([&] { dist::broadcast_({dt}, 0); }, "broadcast_");
  auto ok = from_local(at::full({3}, float(rank())), mesh, {Replicate{}});
  dist::broadcast_({ok}, 0);
  EXPECT_TRUE(at::equal(to_local(ok), at::zeros({3})));
}

TEST(Fault, AllGatherSizesDiffer) {
  auto mesh = world_mesh();
  // Shards of 4 and 1000 rows: each rank infers a different global shape.
  auto dt = from_local(at::ones({uneven_numel(), 2}), mesh, {Shard{0}});
  expect_size_error([&] { dist::all_gather({dt}); }, "all_gather");
  auto ok = from_local(at::ones({2, 2}), mesh, {Shard{0}});
  EXPECT_TRUE(at::equal(
      to_local(dist::all_gather({ok})[0]), at::ones({2 * world_size(), 2})));
}

// Same bytes, different dtypes: Gloo would not crash but reduce float bits
// as int32 bits, a silent wrong answer.
TEST(Fault, DtypesDiffer) {
  auto mesh = world_mesh();
  auto local =
      rank() == 0 ? at::ones({4}, at::kInt) : at::ones({4}, at::kFloat);
  auto dt = from_local(local, mesh, {Partial{}});
  try {
    dist::all_reduce_({dt}, ReduceOp::SUM);
    ADD_FAILURE() << "expected CollectiveMismatchError";
  } catch (const CollectiveMismatchError& e) {
    EXPECT_THAT(e.what(), HasSubstr("4 elements of Int (16 bytes)"));
    EXPECT_THAT(e.what(), HasSubstr("4 elements of Float (16 bytes)"));
    EXPECT_THAT(e.what(), HasSubstr("types, differ"));
  }
}

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

} // namespace

// Its driver sets MESHGUARD_TEST_WORLD_SIZE="<rank>:<value>": that rank
// starts with a WORLD_SIZE the others do not share. Every rank that sees a
// view other than its own must say so at once, naming both values.
TEST(Rendezvous, WorldSizeDisagrees) {
  const char* spec = std::getenv("MESHGUARD_TEST_WORLD_SIZE");
  ASSERT_NE(spec, nullptr)
      << "run by MultiRank2.Rendezvous_WorldSizeDisagrees*";
  const std::string s(spec);
  const int64_t odd_rank = std::stoll(s.substr(0, s.find(':')));
  const std::string odd_value = s.substr(s.find(':') + 1);
  const std::string launched = std::to_string(world_size());
  if (rank() == odd_rank) {
    ::setenv("WORLD_SIZE", odd_value.c_str(), 1);
  }
  const auto start = std::chrono::steady_clock::now();
  try {
    init_device_mesh("cpu", {std::atoll(std::getenv("WORLD_SIZE"))});
    FAIL() << "expected MeshInitError";
  } catch (const MeshInitError& e) {
    const std::string other = rank() == odd_rank ? launched : odd_value;
    EXPECT_THAT(e.what(), HasSubstr("the ranks disagree on WORLD_SIZE"));
    EXPECT_THAT(
        e.what(),
        HasSubstr(
            "has WORLD_SIZE=" + other +
            " but this rank (RANK=" + std::to_string(rank()) +
            ") has WORLD_SIZE=" + std::getenv("WORLD_SIZE")));
    std::printf("rank %lld: %s\n", static_cast<long long>(rank()), e.what());
  }
  // At once: well before the store's timeout (MESHGUARD_TIMEOUT_S=30).
  EXPECT_LT(seconds_since(start), 10.0);
}

// Run alone as RANK=1 against a port held by a listening socket that never
// answers (MultiRank.Rendezvous_SilentMasterPort): the rendezvous must end
// after MESHGUARD_TIMEOUT_S with an error naming the address.
TEST(Rendezvous, SilentMasterPort) {
  const auto start = std::chrono::steady_clock::now();
  const std::string where = std::string(std::getenv("MASTER_ADDR")) + ":" +
      std::getenv("MASTER_PORT");
  try {
    init_device_mesh("cpu", {world_size()});
    ADD_FAILURE() << "expected MeshInitError";
  } catch (const MeshInitError& e) {
    EXPECT_THAT(e.what(), HasSubstr(where));
    std::printf("%s\n", e.what());
  }
  const double timeout_s = std::atof(std::getenv("MESHGUARD_TIMEOUT_S"));
  EXPECT_LT(seconds_since(start), timeout_s + 10.0);
}

// Without the size check, by default: the rank with the smaller buffer
// (rank 0) used to abort inside Gloo; now it gets a catchable
// CollectiveMismatchError naming both byte counts, and rank 1 an error
// pointing at MESHGUARD_CHECK_SIZES. Both must pass. libtorch 2.13's Gloo
// sometimes hangs instead (seen once in three runs): then both ranks get the
// timeout, whose message points at MESHGUARD_CHECK_SIZES too.
TEST(Fault, UncheckedSizesDifferHint) {
  ASSERT_EQ(std::getenv("MESHGUARD_CHECK_SIZES"), nullptr);
  auto mesh = world_mesh();
  auto dt = from_local(at::ones({uneven_numel()}), mesh, {Partial{}});
  try {
    dist::all_reduce_({dt}, ReduceOp::SUM);
    ADD_FAILURE() << "expected an error";
  } catch (const CollectiveMismatchError& e) {
    EXPECT_EQ(rank(), 0) << e.what();
    EXPECT_THAT(
        e.what(),
        HasSubstr(
            "all_reduce: the ranks of the group passed tensors of different sizes"));
    EXPECT_THAT(e.what(), HasSubstr("-byte receive buffer"));
    std::printf("rank %lld: %s\n", static_cast<long long>(rank()), e.what());
  } catch (const CollectiveTimeoutError& e) {
    EXPECT_THAT(e.what(), HasSubstr("MESHGUARD_CHECK_SIZES=1"));
    std::printf("rank %lld: %s\n", static_cast<long long>(rank()), e.what());
  } catch (const std::exception& e) {
    EXPECT_NE(rank(), 0) << e.what();
    EXPECT_THAT(e.what(), HasSubstr("MESHGUARD_CHECK_SIZES=1"));
    std::printf("rank %lld: %s\n", static_cast<long long>(rank()), e.what());
  }
}
