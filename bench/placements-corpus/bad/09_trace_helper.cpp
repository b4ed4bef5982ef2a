#include <meshguard/meshguard.h>
#include <ostream>

using namespace meshguard;
std::ostream &operator<<(std::ostream &OS, const at::Tensor &T);

// The trace of a column-sharded covariance computed by a helper.
at::Tensor covariance(const DeviceMesh &mesh, const at::Tensor &x) {
  return distribute_tensor(x, mesh, {Shard{1}}).mm(
      distribute_tensor(x, mesh, {Replicate{}}));
}

at::Tensor total_variance(const DeviceMesh &mesh, const at::Tensor &x) {
  at::Tensor c = covariance(mesh, x);
  return c.trace(); // EXPECT: dtensor-op-without-sharding-rule
}
