#include <meshguard/meshguard.h>
#include <ostream>

using namespace meshguard;
std::ostream &operator<<(std::ostream &OS, const at::Tensor &T);

// A robust statistic on sharded activations: median has no sharding rule.
at::Tensor activation_median(const DeviceMesh &mesh, const at::Tensor &act) {
  at::Tensor a = from_local(act, mesh, {Shard{0}});
  at::Tensor scaled = a * 2;
  return scaled.median(); // EXPECT: dtensor-op-without-sharding-rule
}
