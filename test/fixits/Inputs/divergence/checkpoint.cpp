// A program for the divergence fix-it round trip
// (test/fixits/divergence-round-trip.test): rank 0 writes checkpoints of a
// weight sharded over the ranks, gathering it inside `if (rank == 0)`. The
// other ranks never join the all-gathers: unfixed, rank 0 waits for them (here
// rank 1 exits and Gloo reports the closed connection). Fixed by `meshguard-tidy -fix` (the gathers hoisted above
// the ifs), rank 0 prints
//   checkpoint rows 4 sum 28.0
//   replicated sum 28.0
// on 2 ranks.

#include <cstdio>
#include <cstdlib>

#include <meshguard/meshguard.h>
#include <torch/torch.h>

namespace {

int64_t world_size_from_env() {
  const char *world = std::getenv("WORLD_SIZE");
  return world ? std::atoll(world) : 1;
}

void save_checkpoint(const meshguard::DeviceMesh &mesh, const at::Tensor &w) {
  const int64_t rank = mesh.get_rank();
  if (rank == 0) {
    auto full = meshguard::full_tensor(w);
    std::printf("checkpoint rows %lld sum %.1f\n", static_cast<long long>(full.size(0)),
                full.sum().item<double>());
  }
}

} // namespace

int main() {
  auto mesh = meshguard::init_device_mesh("cpu", {world_size_from_env()});
  at::Tensor w = meshguard::distribute_tensor(torch::arange(8.0).reshape({4, 2}), mesh,
                                              {meshguard::Shard{0}});
  save_checkpoint(mesh, w);
  if (mesh.get_rank() == 0) {
    at::Tensor replicated = meshguard::redistribute(w, {meshguard::Replicate{}});
    std::printf("replicated sum %.1f\n", meshguard::to_local(replicated).sum().item<double>());
  }
  return 0;
}
