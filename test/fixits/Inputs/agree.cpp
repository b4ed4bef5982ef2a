// A program as a user first writes it, for the fix-it round trip
// (test/fixits/round-trip.test): the ranks agree on a seed, scale a
// replicated weight, sum its norm over the ranks and all-reduce a
// checkpoint of it. Its mistakes, one per fix-it kind:
//   1. a broadcast of a plain tensor, with a DeviceMesh in scope;
//   2. an all-reduce of a to_local() result, with a DTensor in scope;
//   3. a DTensor multiplied by a plain tensor;
//   4. a DTensor handed to a raw c10d process group.
// Unfixed, every rank dies on 1 with MeshNotFoundError. Fixed by
// `meshguard-tidy -fix`, every rank prints
//   seed 100 norms 10.0 checkpoint 14.0
// on 2 ranks: rank 0's seed, 2 x |(3, 4)|, and 2 x (3 + 4).

#include <cstdio>
#include <cstdlib>
#include <vector>

#include <meshguard/meshguard.h>
#include <torch/torch.h>

namespace {

int64_t world_size_from_env() {
  const char *world = std::getenv("WORLD_SIZE");
  return world ? std::atoll(world) : 1;
}

// Every rank takes rank 0's seed.
int64_t agree_on_seed(const meshguard::DeviceMesh &mesh) {
  at::Tensor seed = torch::full({1}, 100 + mesh.get_rank(), torch::kLong);
  meshguard::dist::broadcast_({seed}, /*src=*/0);
  return seed.item<int64_t>();
}

// The weight's norm, summed over the ranks.
double sum_of_norms(const at::Tensor &weight) {
  at::Tensor replicated = meshguard::redistribute(weight, {meshguard::Replicate{}});
  at::Tensor norm = meshguard::to_local(replicated).norm().reshape({1});
  meshguard::dist::all_reduce_({norm});
  return norm.item<double>();
}

} // namespace

int main() {
  auto mesh = meshguard::init_device_mesh("cpu", {world_size_from_env()});
  const int64_t seed = agree_on_seed(mesh);

  at::Tensor w = meshguard::distribute_tensor(torch::tensor({6.0, 8.0}), mesh, {meshguard::Replicate{}});
  at::Tensor half = torch::full({2}, 0.5);
  at::Tensor scaled = w * half;
  const double norms = sum_of_norms(scaled);

  // The checkpoint holds the sum of every rank's copy.
  std::vector<at::Tensor> checkpoint{scaled};
  mesh.get_group(0)->allreduce(checkpoint)->wait();

  std::printf("seed %lld norms %.1f checkpoint %.1f\n", static_cast<long long>(seed), norms,
              checkpoint[0].sum().item<double>());
  return 0;
}
