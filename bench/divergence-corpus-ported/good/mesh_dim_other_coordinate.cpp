// On a (dp, tp) mesh, the tp all-reduce (mesh_dim 1) is guarded by the dp
// coordinate: every member of a tp group has the same dp coordinate, so the
// whole group runs it or skips it together.
// Shape of: MBI CollComGenerator.py ParamMatching_Com_*_ok; parcoach
//   SVG/ex2loop.c (issue #44 item 3: mesh_dim of dist:: collectives)
#include <meshguard/meshguard.h>

void reduce_partials(const meshguard::DeviceMesh &mesh, at::Tensor partial,
                     at::Tensor w) {
  if (mesh.get_local_rank(0) == 0)
    meshguard::dist::all_reduce_({partial}, meshguard::ReduceOp::SUM, 1);
  if (mesh.coordinate()[1] == 0)
    meshguard::guarded::broadcast_({w}, mesh, 0, 0);
}
