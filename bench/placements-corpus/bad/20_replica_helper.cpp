#include <meshguard/meshguard.h>
#include <ostream>

using namespace meshguard;
std::ostream &operator<<(std::ostream &OS, const at::Tensor &T);

// A helper that wraps a tensor as replicated parameters' bias: right for a
// uniform tensor, given each rank's own noise here.
at::Tensor as_shared(const at::Tensor &t, const DeviceMesh &mesh) {
  return from_local(t, mesh, {Replicate{}});
}

at::Tensor noisy_bias(const DeviceMesh &mesh, const at::Tensor &bias) {
  at::Tensor noise = bias * 0.01 * mesh.get_rank();
  return as_shared(bias + noise, mesh); // EXPECT: dtensor-unverified-replicate
}
