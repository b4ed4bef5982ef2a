#include <meshguard/meshguard.h>
#include <ostream>

using namespace meshguard;
std::ostream &operator<<(std::ostream &OS, const at::Tensor &T);

double step_loss(const DeviceMesh &mesh, const at::Tensor &pred,
                 const at::Tensor &target) {
  at::Tensor err = from_local(pred - target, mesh, {Shard{0}});
  at::Tensor loss = err.pow(2).mean();
  return full_tensor(loss).item<double>();
}
