#include <meshguard/meshguard.h>
#include <meshguard/runtime/Parallelize.h>
#include <ostream>

using namespace meshguard;
std::ostream &operator<<(std::ostream &OS, const at::Tensor &T);

// A row-parallel projection helper: features split on dim 1, weight rows
// on dim 0, so the product is Partial; the caller reads its local tensor.
at::Tensor row_parallel(const DeviceMesh &mesh, const at::Tensor &x, const at::Tensor &w) {
  return mm(from_local(x, mesh, {Shard{1}}), from_local(w, mesh, {Shard{0}}));
}

double activation_norm(const DeviceMesh &mesh, const at::Tensor &x, const at::Tensor &w) {
  at::Tensor out = to_local(row_parallel(mesh, x, w));
  return out.pow(2).sum().item<double>(); // EXPECT: dtensor-partial-local-use
}
