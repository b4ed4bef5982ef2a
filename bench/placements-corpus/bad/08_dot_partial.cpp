#include <meshguard/meshguard.h>
#include <ostream>

using namespace meshguard;
std::ostream &operator<<(std::ostream &OS, const at::Tensor &T);

// A similarity of two vectors, one a Partial sum of per-rank contributions.
at::Tensor similarity(const DeviceMesh &mesh, const at::Tensor &u,
                      const at::Tensor &v) {
  at::Tensor pu = from_local(u, mesh, {Partial{}});
  at::Tensor rv = distribute_tensor(v, mesh, {Replicate{}});
  return at::dot(pu, rv); // EXPECT: dtensor-op-without-sharding-rule
}
