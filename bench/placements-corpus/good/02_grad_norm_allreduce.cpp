#include <meshguard/meshguard.h>
#include <ostream>

using namespace meshguard;
std::ostream &operator<<(std::ostream &OS, const at::Tensor &T);

// The squared norm's share all-reduced by hand before the sqrt.
at::Tensor grad_norm(const DeviceMesh &mesh, const at::Tensor &grad_rows) {
  at::Tensor g = from_local(grad_rows, mesh, {Shard{0}});
  at::Tensor local = to_local(g.pow(2).sum());
  guarded::all_reduce_({local}, mesh);
  return local;
}
