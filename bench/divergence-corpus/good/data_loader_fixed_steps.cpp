// The loader length is agreed on first (all-reduce MIN), then each rank runs
// that many batches.
#include <meshguard/meshguard.h>

struct ShardLoader {
  ShardLoader(int64_t rank, int64_t world);
  int64_t size() const;
  at::Tensor next();
};

void epoch(const meshguard::DeviceMesh &mesh, at::Tensor w) {
  ShardLoader loader(mesh.get_rank(), mesh.size());
  at::Tensor n = torch::tensor(double(loader.size()));
  meshguard::dist::all_reduce_({n}, meshguard::ReduceOp::MIN);
  const int64_t steps = n.item<int64_t>();
  for (int64_t s = 0; s < steps; ++s) {
    at::Tensor g = loader.next() * w;
    meshguard::dist::all_reduce_({g});
  }
}
