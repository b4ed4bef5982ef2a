#include <meshguard/meshguard.h>
#include <ostream>

using namespace meshguard;
std::ostream &operator<<(std::ostream &OS, const at::Tensor &T);

// The same helper given a tensor every rank computes alike, and a per-rank
// one averaged first.
at::Tensor as_shared(const at::Tensor &t, const DeviceMesh &mesh) {
  return from_local(t, mesh, {Replicate{}});
}

at::Tensor shared_bias(const DeviceMesh &mesh, const at::Tensor &bias) {
  at::Tensor noise = bias * 0.01 * mesh.get_rank();
  guarded::all_reduce_({noise}, mesh);
  return as_shared(bias * 2, mesh) + as_shared(noise, mesh);
}
