// On a (dp, tp) mesh, the tp all-reduce (mesh_dim 1) is guarded by the tp
// coordinate: inside one tp group some members skip it.
// Shape of: MBI CollComGenerator.py ParamMatching_Com_*_nok; parcoach
//   SVG/ex2loop.c (issue #44 item 3: mesh_dim of dist:: collectives)
#include <meshguard/meshguard.h>

void reduce_partials(const meshguard::DeviceMesh &mesh, at::Tensor partial) {
  if (mesh.get_local_rank(1) == 0)
    meshguard::dist::all_reduce_({partial}, meshguard::ReduceOp::SUM, 1); // EXPECT-DIVERGENCE
}
