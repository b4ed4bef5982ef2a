#include <meshguard/meshguard.h>
#include <ostream>

using namespace meshguard;
std::ostream &operator<<(std::ostream &OS, const at::Tensor &T);

// The trace of a Gram matrix that is a Partial sum of per-rank
// contributions: trace has no sharding rule.
at::Tensor gram_trace(const DeviceMesh &mesh, const at::Tensor &g) {
  at::Tensor gram = from_local(g, mesh, {Partial{}});
  return gram.trace(); // EXPECT: dtensor-op-without-sharding-rule
}
