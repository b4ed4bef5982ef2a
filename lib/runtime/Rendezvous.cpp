#include "Rendezvous.h"

#include <algorithm>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <thread>
#include <tuple>

#include <meshguard/runtime/Errors.h>

#include "LaunchEnvironment.h"
#include "compat/TorchCompat.h"

namespace meshguard {
namespace detail {

namespace {

using Clock = std::chrono::steady_clock;

std::string address(const LaunchEnvironment& env) {
  return env.master_addr + ":" + std::to_string(env.master_port);
}

std::string seconds(std::chrono::milliseconds t) {
  std::ostringstream os;
  os << static_cast<double>(t.count()) / 1000.0 << " s";
  return os.str();
}

std::string world_size_key(int64_t rank) {
  return "meshguard/rendezvous/world_size/" + std::to_string(rank);
}

std::string ack_key(int64_t rank) {
  return "meshguard/rendezvous/read_rank0/" + std::to_string(rank);
}

std::chrono::milliseconds left_until(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - Clock::now());
  return std::max(left, std::chrono::milliseconds(1));
}

[[noreturn]] void fail_disagreement(
    const LaunchEnvironment& env,
    int64_t other_rank,
    int64_t other_world_size) {
  throw MeshInitError(
      "init_device_mesh: the ranks disagree on WORLD_SIZE: rank " +
      std::to_string(other_rank) +
      " has WORLD_SIZE=" + std::to_string(other_world_size) +
      " but this rank (RANK=" + std::to_string(env.rank) + ") has WORLD_SIZE=" +
      std::to_string(env.world_size) + " (rendezvous at " + address(env) +
      "); start every rank of the job with the same WORLD_SIZE");
}

[[noreturn]] void fail_no_answer(
    const LaunchEnvironment& env,
    std::chrono::milliseconds timeout) {
  throw MeshInitError(
      "init_device_mesh: no answer from the rendezvous store at " +
      address(env) + " (MASTER_ADDR:MASTER_PORT) within " + seconds(timeout) +
      " (MESHGUARD_TIMEOUT_S); rank 0 of this job should serve it there: is another program "
      "holding that port?");
}

[[noreturn]] void fail_missing(
    c10d::Store& store,
    const LaunchEnvironment& env,
    std::chrono::milliseconds timeout) {
  std::ostringstream missing;
  for (int64_t r = 0; r < env.world_size; ++r) {
    bool joined = false;
    try {
      joined = r == env.rank || store.check({world_size_key(r)});
    } catch (const std::exception&) {
      fail_no_answer(env, timeout);
    }
    if (!joined) {
      missing << (missing.tellp() > 0 ? ", " : "") << r;
    }
  }
  throw MeshInitError(
      "init_device_mesh: rendezvous at " + address(env) + " timed out after " +
      seconds(timeout) + " (MESHGUARD_TIMEOUT_S): rank(s) " + missing.str() +
      " of WORLD_SIZE=" + std::to_string(env.world_size) + " did not join");
}

int64_t read_world_size(c10d::Store& store, int64_t rank) {
  auto bytes = store.get(world_size_key(rank));
  return std::stoll(std::string(bytes.begin(), bytes.end()));
}

// Every rank publishes its WORLD_SIZE and compares it with those of the
// ranks it expects (rank 0's first: every rank that can tell says so at
// once, instead of a "Socket Timeout" later). This is also the wait for all
// ranks to join. A rank outside its own world still publishes and reads
// rank 0's view: the disagreement is the better error, and rank 0 learns it.
void agree_on_world_size(
    c10d::Store& store,
    const LaunchEnvironment& env,
    std::chrono::milliseconds timeout,
    Clock::time_point deadline) {
  const auto mine = std::to_string(env.world_size);
  store.set(
      world_size_key(env.rank), std::vector<uint8_t>(mine.begin(), mine.end()));
  const int64_t last = env.rank < env.world_size ? env.world_size : 1;
  for (int64_t r = 0; r < last; ++r) {
    if (r == env.rank) {
      continue;
    }
    try {
      store.wait({world_size_key(r)}, left_until(deadline));
    } catch (const c10::Error&) {
      fail_missing(store, env, timeout);
    }
    const int64_t theirs = read_world_size(store, r);
    if (r == 0) {
      // Spelled out: under C++20 (libtorch 2.14) a bare {1} also fits set(key,
      // std::string).
      store.set(ack_key(env.rank), std::vector<uint8_t>{1});
    }
    if (theirs != env.world_size) {
      if (env.rank == 0) {
        // This process serves the store: give rank r the moment it needs
        // to read rank 0's view, so that it can say so too.
        try {
          store.wait(
              {ack_key(r)},
              std::min(left_until(deadline), std::chrono::milliseconds(5000)));
        } catch (const c10::Error&) { // NOLINT(bugprone-empty-catch)
          // Rank r did not read it in time: the error below still says what
          // rank 0 saw.
        }
      }
      fail_disagreement(env, r, theirs);
    }
  }
}

struct Pending {
  std::promise<c10::intrusive_ptr<c10d::Store>> promise;
};

// One TCPStore per (address, port) in a process: rank 0 serves it and can
// bind the port only once, so later meshes reuse it. Connecting runs on a
// thread of its own: a port held by a program that accepts but never
// answers would block a TCPStore client forever, whatever its timeout.
c10::intrusive_ptr<c10d::Store> env_store(
    const LaunchEnvironment& env,
    std::chrono::milliseconds timeout) {
  static std::mutex mu;
  static auto* stores = new std::map<
      std::tuple<std::string, int64_t, int64_t>,
      c10::intrusive_ptr<c10d::Store>>();
  std::lock_guard<std::mutex> lock(mu);
  auto key = std::make_tuple(env.master_addr, env.master_port, env.rank);
  auto it = stores->find(key);
  if (it != stores->end()) {
    return it->second;
  }
  const auto deadline = Clock::now() + timeout;
  auto pending = std::make_shared<Pending>();
  auto future = pending->promise.get_future();
  std::thread([pending, env, timeout, deadline] {
    try {
      auto store = compat::make_tcp_store(
          env.master_addr,
          static_cast<uint16_t>(env.master_port),
          env.rank == 0,
          env.world_size,
          timeout);
      agree_on_world_size(*store, env, timeout, deadline);
      pending->promise.set_value(store);
    } catch (...) {
      pending->promise.set_exception(std::current_exception());
    }
  }).detach();
  // The store's own timeouts end a rendezvous with a live server; the grace
  // lets their clearer errors arrive first.
  if (future.wait_until(deadline + std::chrono::seconds(3)) !=
      std::future_status::ready) {
    fail_no_answer(env, timeout);
  }
  c10::intrusive_ptr<c10d::Store> store;
  try {
    store = future.get();
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    throw MeshInitError(
        "init_device_mesh: rendezvous at " + address(env) +
        " (MASTER_ADDR:MASTER_PORT) failed: " + e.what());
  }
  stores->emplace(key, store);
  return store;
}

Rendezvous from_user_store(
    const std::string& device_type,
    const MeshOptions& options) {
  Rendezvous r;
  r.store = options.store;
  r.rank = options.rank;
  r.world_size = options.world_size;
  r.gloo_hostname = options.gloo_hostname;
  if (r.rank < 0 || r.world_size <= 0) {
    throw MeshInitError(
        "init_device_mesh: MeshOptions::store needs MeshOptions::rank and ::world_size");
  }
  if (device_type == "cuda") {
    const int64_t local_rank = read_local_rank(device_type, /*required=*/false);
    r.device_index = local_rank >= 0 ? compat::bind_local_device(local_rank)
                                     : compat::current_cuda_device();
  }
  return r;
}

Rendezvous from_environment(
    const std::string& device_type,
    const MeshOptions& options,
    std::chrono::milliseconds timeout) {
  const auto env = read_launch_environment(device_type);
  Rendezvous r;
  r.rank = env.rank;
  r.world_size = env.world_size;
  r.gloo_hostname = options.gloo_hostname;
  if (device_type == "cuda") {
    r.device_index = compat::bind_local_device(
        read_local_rank(device_type, /*required=*/true));
  }
  if (env.rank < 0 || env.world_size <= 0) {
    check_rank_in_world(env);
  }
  if (r.gloo_hostname.empty() && is_loopback(env.master_addr)) {
    r.gloo_hostname = "127.0.0.1";
  }
  // Joins even when RANK >= WORLD_SIZE: the ranks' views of WORLD_SIZE,
  // compared there, say more than this rank's alone.
  r.store = env_store(env, timeout);
  check_rank_in_world(env);
  return r;
}

} // namespace

Rendezvous rendezvous(
    const std::string& device_type,
    const MeshOptions& options,
    std::chrono::milliseconds timeout) {
  return options.store ? from_user_store(device_type, options)
                       : from_environment(device_type, options, timeout);
}

} // namespace detail
} // namespace meshguard
