// Even ranks reduce then broadcast, odd ranks the other way round (verl#6365).
#include <meshguard/meshguard.h>

void sync(const meshguard::DeviceMesh &mesh, at::Tensor params, at::Tensor grads) {
  if (mesh.get_rank() % 2 == 0) {
    meshguard::dist::all_reduce_({grads}); // EXPECT-DIVERGENCE
    meshguard::dist::broadcast_({params}, 0); // EXPECT-DIVERGENCE
  } else {
    meshguard::dist::broadcast_({params}, 0); // EXPECT-DIVERGENCE
    meshguard::dist::all_reduce_({grads}); // EXPECT-DIVERGENCE
  }
}
