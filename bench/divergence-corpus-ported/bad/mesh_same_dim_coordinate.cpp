// 2-d mesh (dp x tp). The data-parallel group of a rank is its mesh-dim-0
// group, whose members have every dim-0 coordinate; guarding its all-reduce
// with `coordinate()[0] == 0` leaves one member of each group in it alone.
// Ported from: parcoach/parcoach/tests/MPI/basic/SVG/ex2loop.c (barrier on a
//   split communicator under a rank condition)
#include <meshguard/meshguard.h>

void sync_replicas(const meshguard::DeviceMesh &mesh,
                   std::vector<at::Tensor> &grads) {
  const auto &dp_group = mesh.get_group(0);
  if (mesh.coordinate()[0] == 0)
    dp_group->allreduce(grads)->wait(); // EXPECT-DIVERGENCE
}
