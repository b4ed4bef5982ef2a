// Uses the installed runtime: a one-rank mesh, a DTensor, the guard.
#include <cstdio>

#include <meshguard/meshguard.h>
#include <torch/csrc/distributed/c10d/HashStore.hpp>

int main() {
  meshguard::MeshOptions opts;
  opts.store = c10::make_intrusive<c10d::HashStore>();
  opts.rank = 0;
  opts.world_size = 1;
  opts.gloo_hostname = "127.0.0.1";
  auto mesh = meshguard::init_device_mesh("cpu", {1}, opts);
  at::Tensor t = at::ones({3});
  try {
    meshguard::dist::broadcast_({t}, 0);
    return 1;
  } catch (const meshguard::MeshNotFoundError& e) {
    std::printf("caught: %.64s\n", e.what());
  }
  meshguard::guarded::broadcast_({t}, mesh, 0);
  at::Tensor dt = meshguard::distribute_tensor(
      at::ones({2, 2}), mesh, {meshguard::Shard{0}});
  std::printf(
      "consumer ok: %s\n", meshguard::is_dtensor(dt * 2) ? "dtensor" : "plain");
  return 0;
}
