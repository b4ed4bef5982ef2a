// The first `rem` ranks get one batch more: they all-reduce once more.
#include <meshguard/meshguard.h>

at::Tensor batch_grad(int64_t index);

void epoch(const meshguard::DeviceMesh &mesh, int64_t dataset_batches) {
  const int64_t world = mesh.size();
  const int64_t rank = mesh.get_rank();
  int64_t mine = dataset_batches / world;
  if (rank < dataset_batches % world)
    mine += 1;
  for (int64_t b = 0; b < mine; ++b) {
    at::Tensor g = batch_grad(b * world + rank);
    meshguard::dist::all_reduce_({g}); // EXPECT-DIVERGENCE
  }
}
