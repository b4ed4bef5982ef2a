#include <meshguard/meshguard.h>
#include <meshguard/runtime/Parallelize.h>
#include <ostream>

using namespace meshguard;
std::ostream &operator<<(std::ostream &OS, const at::Tensor &T);

// The row-parallel product reduced before its norm is taken.
at::Tensor row_parallel(const DeviceMesh &mesh, const at::Tensor &x, const at::Tensor &w) {
  return mm(from_local(x, mesh, {Shard{1}}), from_local(w, mesh, {Shard{0}}));
}

double activation_norm(const DeviceMesh &mesh, const at::Tensor &x, const at::Tensor &w) {
  at::Tensor out = full_tensor(row_parallel(mesh, x, w));
  return out.pow(2).sum().item<double>();
}
