#include <meshguard/meshguard.h>
#include <ostream>

using namespace meshguard;
std::ostream &operator<<(std::ostream &OS, const at::Tensor &T);

// A replicated value has nothing to reduce: its local tensor is the value.
double replicated_loss(const DeviceMesh &mesh, const at::Tensor &x) {
  at::Tensor r = distribute_tensor(x, mesh, {Replicate{}});
  return to_local(r.pow(2).sum()).item<double>();
}
