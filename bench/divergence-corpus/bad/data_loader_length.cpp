// A per-rank loader yields a rank-dependent number of batches.
#include <meshguard/meshguard.h>

struct ShardLoader {
  ShardLoader(int64_t rank, int64_t world);
  bool has_next() const;
  at::Tensor next();
};

void epoch(const meshguard::DeviceMesh &mesh, at::Tensor w) {
  ShardLoader loader(mesh.get_rank(), mesh.size());
  while (loader.has_next()) {
    at::Tensor g = loader.next() * w;
    meshguard::dist::all_reduce_({g}); // EXPECT-DIVERGENCE
  }
}
