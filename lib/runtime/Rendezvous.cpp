#include "Rendezvous.h"

#include <map>
#include <mutex>
#include <tuple>

#include <meshguard/runtime/Errors.h>

#include "LaunchEnvironment.h"
#include "compat/TorchCompat.h"

namespace meshguard {
namespace detail {

namespace {

// One TCPStore per (address, port) in a process: rank 0 serves it and can
// bind the port only once, so later meshes reuse it.
c10::intrusive_ptr<c10d::Store> env_store(
    const std::string& addr,
    int64_t port,
    int64_t rank,
    int64_t world_size,
    std::chrono::milliseconds timeout) {
  static std::mutex mu;
  static auto* stores = new std::map<std::tuple<std::string, int64_t, int64_t>, c10::intrusive_ptr<c10d::Store>>();
  std::lock_guard<std::mutex> lock(mu);
  auto key = std::make_tuple(addr, port, rank);
  auto it = stores->find(key);
  if (it != stores->end()) {
    return it->second;
  }
  auto store = compat::make_tcp_store(addr, static_cast<uint16_t>(port), rank == 0, world_size, timeout);
  stores->emplace(key, store);
  return store;
}

Rendezvous from_user_store(const std::string& device_type, const MeshOptions& options) {
  Rendezvous r;
  r.store = options.store;
  r.rank = options.rank;
  r.world_size = options.world_size;
  r.gloo_hostname = options.gloo_hostname;
  if (r.rank < 0 || r.world_size <= 0) {
    throw MeshInitError("init_device_mesh: MeshOptions::store needs MeshOptions::rank and ::world_size");
  }
  if (device_type == "cuda") {
    const int64_t local_rank = read_local_rank(device_type, /*required=*/false);
    r.device_index = local_rank >= 0 ? compat::bind_local_device(local_rank) : compat::current_cuda_device();
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
    r.device_index = compat::bind_local_device(read_local_rank(device_type, /*required=*/true));
  }
  check_rank_in_world(env);
  if (r.gloo_hostname.empty() && is_loopback(env.master_addr)) {
    r.gloo_hostname = "127.0.0.1";
  }
  r.store = env_store(env.master_addr, env.master_port, env.rank, env.world_size, timeout);
  return r;
}

} // namespace

Rendezvous rendezvous(const std::string& device_type, const MeshOptions& options, std::chrono::milliseconds timeout) {
  return options.store ? from_user_store(device_type, options) : from_environment(device_type, options, timeout);
}

} // namespace detail
} // namespace meshguard
