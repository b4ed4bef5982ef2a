// 2-d mesh (dp x tp). Every member of a mesh-dim-0 (data-parallel) group has
// the same dim-1 coordinate, so a guard on coordinate()[1] is uniform within
// the group that runs the all-reduce.
// Ported from: parcoach/parcoach/tests/MPI/basic/SVG/ex2loop.c (sub-communicator
//   collective; here the guard is the split key of that sub-communicator)
#include <meshguard/meshguard.h>

void sync_replicas(const meshguard::DeviceMesh &mesh,
                   std::vector<at::Tensor> &grads) {
  const auto &dp_group = mesh.get_group(0);
  if (mesh.coordinate()[1] == 0)
    dp_group->allreduce(grads)->wait();
}
