// A rank-0-only checkpoint that gathers a sharded weight (issue #15): the
// full_tensor() inside `if (rank == 0)` is a collective that only rank 0
// runs, so rank 0 waits in it while rank 1 goes on to the next step's
// all-reduce. Run it with the collective-consistency mode:
//
//   MESHGUARD_DEBUG_COLLECTIVES=1 scripts/meshguard-launch --nproc 2 -- build/bin/rank0_checkpoint
//
// and both ranks stop at once with a CollectiveMismatchError naming
// full_tensor at this file's checkpoint line and dist::all_reduce_ at the
// step's line. (Without the variable the ranks mis-pair the two collectives
// and end with Gloo's error, or the timeout, without a word of where.)
// The fix: gather on every rank, write on rank 0 only.

#include <cstdio>

#include <meshguard/meshguard.h>
#include <torch/torch.h>

int main() {
  try {
    auto mesh = meshguard::init_device_mesh("cpu", {std::atoll(std::getenv("WORLD_SIZE"))});
    const int64_t rank = mesh.get_rank();
    torch::manual_seed(0);
    at::Tensor weight = meshguard::distribute_tensor(torch::randn({8, 4}), mesh, {meshguard::Shard{0}});
    for (int step = 0; step < 3; ++step) {
      // This rank's share of a gradient norm, summed over the ranks.
      at::Tensor norm = meshguard::from_local(torch::full({1}, float(rank + step)), mesh, {meshguard::Partial{}});
      meshguard::dist::all_reduce_({norm});
      if (rank == 0 && step == 1) {
        at::Tensor full = meshguard::full_tensor(weight); // the mistake: only rank 0 gathers
        std::printf("checkpoint: %lld values, sum %.3f\n", static_cast<long long>(full.numel()),
                    full.sum().item<double>());
      }
      std::printf("rank %lld step %d: norm %.1f\n", static_cast<long long>(rank), step,
                  meshguard::to_local(norm).item<double>());
    }
    return 0;
  } catch (const meshguard::Error& e) {
    std::fprintf(stderr, "meshguard error: %s\n", e.what());
    return 1;
  }
}
