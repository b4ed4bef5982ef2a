// run_check communicates: rank 0 alone verifies its shard.
#include <meshguard/meshguard.h>

at::Tensor wrap(const meshguard::DeviceMesh &mesh, const at::Tensor &local,
                bool debug) {
  if (debug && mesh.get_rank() == 0)
    return meshguard::from_local(local, mesh, {meshguard::Replicate{}}, true); // EXPECT-DIVERGENCE
  return meshguard::from_local(local, mesh, {meshguard::Replicate{}});
}
