#include <meshguard/meshguard.h>
#include <ostream>

using namespace meshguard;
std::ostream &operator<<(std::ostream &OS, const at::Tensor &T);

at::Tensor covariance(const DeviceMesh &mesh, const at::Tensor &x) {
  return distribute_tensor(x, mesh, {Replicate{}}).mm(
      distribute_tensor(x, mesh, {Replicate{}}));
}

at::Tensor total_variance(const DeviceMesh &mesh, const at::Tensor &x) {
  return covariance(mesh, x).trace();
}
