#include <meshguard/meshguard.h>
#include <ostream>

using namespace meshguard;
std::ostream &operator<<(std::ostream &OS, const at::Tensor &T);

// The gradient norm of a row-sharded gradient, taken from the local sum.
at::Tensor grad_norm(const DeviceMesh &mesh, const at::Tensor &grad_rows) {
  at::Tensor g = from_local(grad_rows, mesh, {Shard{0}});
  at::Tensor sq = g.pow(2).sum();
  at::Tensor local = to_local(sq);
  return local.sqrt(); // EXPECT: dtensor-partial-local-use
}
