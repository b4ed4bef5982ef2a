#include <meshguard/meshguard.h>
#include <ostream>
#include <utility>

using namespace meshguard;
std::ostream &operator<<(std::ostream &OS, const at::Tensor &T);

// matmul decomposes into mm before the DTensor kernel: S(1) x S(0) gives a
// Partial result, read here as the value.
double rowwise_score(const DeviceMesh &mesh, const at::Tensor &x,
                     const at::Tensor &w) {
  at::Tensor y = at::matmul(from_local(x, mesh, {Shard{1}}),
                            distribute_tensor(w, mesh, {Shard{0}}));
  return to_local(y).sum().item<double>(); // EXPECT: dtensor-partial-local-use
}
