// from_local without run_check does not communicate.
#include <meshguard/meshguard.h>

at::Tensor wrap(const meshguard::DeviceMesh &mesh, const at::Tensor &local) {
  if (mesh.get_rank() == 0)
    return meshguard::from_local(local * 2, mesh, {meshguard::Shard{0}});
  return meshguard::from_local(local, mesh, {meshguard::Shard{0}});
}
