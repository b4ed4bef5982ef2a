#include <meshguard/meshguard.h>
#include <ostream>

using namespace meshguard;
std::ostream &operator<<(std::ostream &OS, const at::Tensor &T);

double as_scalar(const at::Tensor &t) { return t.item<double>(); }

double accuracy(const DeviceMesh &mesh, const at::Tensor &hits) {
  at::Tensor h = from_local(hits, mesh, {Shard{0}});
  return as_scalar(full_tensor(h.sum()));
}
