// Rank tests for diverging collectives (issue #15): ranks that call different
// collectives, skip one, or pass different shapes. With
// MESHGUARD_DEBUG_COLLECTIVES=1 every rank that waits gets an error naming
// what each rank called and where, within seconds; without it the runtime's
// own timeout or error still ends the wait. Their drivers in
// MultiRankTest.cpp set the environment (run under scripts/meshguard-launch).

#include <chrono>
#include <cstdlib>
#include <thread>

#include <gmock/gmock.h>

#include "RankUtil.h"

using namespace meshguard;
using namespace meshguard::testing;
using ::testing::HasSubstr;

namespace {

using Clock = std::chrono::steady_clock;

bool debug_mode() {
  return debug_collectives_enabled();
}

double env_seconds(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? 0.0 : std::atof(v);
}

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Each helper runs its collective (unless given nullptr) and returns the
// line it is called from, which the error must name: the other rank knows
// it without running it. The collective and __LINE__ share one line, so
// clang-format must not break it.
// clang-format off
int all_reduce_here(const at::Tensor* t) {
  if (t != nullptr) dist::all_reduce_({*t}); return __LINE__;
}
int broadcast_here(const at::Tensor* t) {
  if (t != nullptr) dist::broadcast_({*t}, 0); return __LINE__;
}
int full_tensor_here(const at::Tensor* t) {
  if (t != nullptr) full_tensor(*t); return __LINE__;
}
// clang-format on

std::string site(int line) {
  return "RankDebugTest.cpp:" + std::to_string(line);
}

// The error every rank must get in debug mode, fast.
template <typename Error>
void expect_debug_error(
    const std::function<void()>& run,
    const std::vector<std::string>& texts,
    double bound_s) {
  const auto start = Clock::now();
  try {
    run();
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    for (const auto& text : texts) {
      EXPECT_THAT(e.what(), HasSubstr(text));
    }
    std::printf("rank %lld: %s\n", static_cast<long long>(rank()), e.what());
  }
  EXPECT_LT(seconds_since(start), bound_s);
}

// Mode off: an error within the mesh timeout. A rank left waiting gets the
// runtime's CollectiveTimeoutError, which points at the debug mode (or, if
// its peer timed out first and left, the closed connection).
void expect_bounded_error(
    const std::function<void()>& run,
    bool timeout_expected) {
  const auto start = Clock::now();
  try {
    run();
    ADD_FAILURE() << "expected an error";
  } catch (const CollectiveTimeoutError& e) {
    EXPECT_THAT(e.what(), HasSubstr("did not complete within"));
    EXPECT_THAT(e.what(), HasSubstr("MESHGUARD_DEBUG_COLLECTIVES=1"));
    std::printf("rank %lld: %s\n", static_cast<long long>(rank()), e.what());
  } catch (const std::exception& e) {
    // The first rank to time out leaves, so a slower one may see that first.
    if (timeout_expected) {
      EXPECT_THAT(e.what(), HasSubstr("by peer"));
    }
    std::printf("rank %lld: %s\n", static_cast<long long>(rank()), e.what());
  }
  EXPECT_LT(seconds_since(start), env_seconds("MESHGUARD_TIMEOUT_S") + 10.0);
}

} // namespace

// Rank 0 all-reduces where rank 1 broadcasts a tensor of the same size.
TEST(Debug, DifferentOps) {
  auto mesh = world_mesh();
  auto partial = from_local(at::ones({4}), mesh, {Partial{}});
  auto replicate = from_local(at::ones({4}), mesh, {Replicate{}});
  auto run = [&] {
    if (rank() == 0) {
      all_reduce_here(&partial);
    } else {
      broadcast_here(&replicate);
    }
  };
  if (!debug_mode()) {
    // Gloo files the two ops' messages under different slots: each rank
    // waits for a message that never comes, until the timeout.
    expect_bounded_error(run, /*timeout_expected=*/true);
    return;
  }
  expect_debug_error<CollectiveMismatchError>(
      run,
      {"collectives differ across ranks",
       "dist::all_reduce_ at ",
       site(all_reduce_here(nullptr)),
       "dist::broadcast_ at ",
       site(broadcast_here(nullptr)),
       "rank 0",
       "rank 1",
       "c10d allreduce",
       "c10d broadcast"},
      5.0);
}

// Rank 0 gathers a sharded tensor inside `if (rank == 0)`; rank 1 skips it
// and stays busy past every timeout. Rank 0 must learn that rank 1 never
// came, and where rank 1 last was.
TEST(Debug, SkippedCollective) {
  auto mesh = world_mesh();
  auto warm = from_local(at::ones({2}), mesh, {Partial{}});
  all_reduce_here(&warm);
  auto sharded = distribute_tensor(full_of({4, 2}, 0), mesh, {Shard{0}});
  const double debug_s = env_seconds("MESHGUARD_DEBUG_TIMEOUT_S");
  const double mesh_s = env_seconds("MESHGUARD_TIMEOUT_S");
  if (rank() != 0) {
    // Longer than rank 0 waits in either mode, then leave.
    std::this_thread::sleep_for(
        std::chrono::duration<double>((debug_mode() ? debug_s : mesh_s) + 3.0));
    return;
  }
  if (!debug_mode()) {
    expect_bounded_error(
        [&] { full_tensor_here(&sharded); }, /*timeout_expected=*/true);
    return;
  }
  expect_debug_error<CollectiveTimeoutError>(
      [&] { full_tensor_here(&sharded); },
      {"did not start on every rank",
       "full_tensor at ",
       site(full_tensor_here(nullptr)),
       "Shard(dim=0)",
       "rank 1: never arrived; its last collective on this group was",
       // distribute_tensor's broadcast was the last one both ran.
       "distribute_tensor at "},
      debug_s + 5.0);
}

// One all-reduce, 4 elements on rank 0 and 1000 on rank 1.
TEST(Debug, DifferentShapes) {
  auto mesh = world_mesh();
  auto dt = from_local(at::ones({rank() == 0 ? 4 : 1000}), mesh, {Partial{}});
  if (!debug_mode()) {
    // Rank 0's Gloo transport meets the longer message (a
    // CollectiveMismatchError); rank 1 sees rank 0 leave.
    expect_bounded_error(
        [&] { all_reduce_here(&dt); }, /*timeout_expected=*/false);
    return;
  }
  expect_debug_error<CollectiveMismatchError>(
      [&] { all_reduce_here(&dt); },
      {"collectives differ across ranks",
       site(all_reduce_here(nullptr)),
       "c10d allreduce([4] Float",
       "c10d allreduce([1000] Float"},
      5.0);
}
