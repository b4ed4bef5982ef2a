#include <meshguard/meshguard.h>
#include <ostream>

using namespace meshguard;
std::ostream &operator<<(std::ostream &OS, const at::Tensor &T);

// Concatenating a 1-D-mesh parameter with a 2-D-mesh one for a flat view.
at::Tensor flat_params(const DeviceMesh &dp, const DeviceMesh &hsdp,
                       const at::Tensor &a, const at::Tensor &b) {
  at::Tensor p = from_local(a, dp, {Shard{0}});
  at::Tensor q = from_local(b, hsdp, {Replicate{}, Shard{0}});
  return at::cat({p, q}); // EXPECT: dtensor-mixed-meshes
}
