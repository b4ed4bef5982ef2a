#include <meshguard/meshguard.h>
#include <ostream>

using namespace meshguard;
std::ostream &operator<<(std::ostream &OS, const at::Tensor &T);

// Per-rank dropout masks labelled Replicate: every rank believes its own.
at::Tensor shared_mask(const DeviceMesh &mesh, const at::Tensor &base) {
  int64_t r = mesh.get_rank();
  at::Tensor mask = base * (r + 1);
  return from_local(mask, mesh, {Replicate{}}); // EXPECT: dtensor-unverified-replicate
}
