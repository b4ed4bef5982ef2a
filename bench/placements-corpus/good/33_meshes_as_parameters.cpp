#include <meshguard/meshguard.h>
#include <meshguard/runtime/Parallelize.h>
#include <ostream>

using namespace meshguard;
std::ostream &operator<<(std::ostream &OS, const at::Tensor &T);

// Dense and expert meshes arrive as two parameters: the caller passes one
// mesh for both in single-node runs, so nothing says they differ.
at::Tensor combine(const DeviceMesh &dense, const DeviceMesh &expert, const at::Tensor &a,
                   const at::Tensor &b) {
  at::Tensor x = from_local(a, dense, {Shard{0}});
  at::Tensor y = from_local(b, expert, {Shard{0}});
  return x + y;
}
