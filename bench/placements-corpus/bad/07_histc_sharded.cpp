#include <meshguard/meshguard.h>
#include <ostream>

using namespace meshguard;
std::ostream &operator<<(std::ostream &OS, const at::Tensor &T);

// A histogram of sharded activations: histc has no sharding rule.
at::Tensor activation_histogram(const DeviceMesh &mesh, const at::Tensor &act) {
  at::Tensor a = from_local(act, mesh, {Shard{0}});
  at::Tensor scaled = a * 2;
  return scaled.histc(32); // EXPECT: dtensor-op-without-sharding-rule
}
