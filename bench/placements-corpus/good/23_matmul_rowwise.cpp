#include <meshguard/meshguard.h>
#include <ostream>

using namespace meshguard;
std::ostream &operator<<(std::ostream &OS, const at::Tensor &T);

// Rows sharded, weight replicated: each rank's rows of the product, whose
// per-row scores are right on every rank.
at::Tensor rowwise_scores(const DeviceMesh &mesh, const at::Tensor &x,
                          const at::Tensor &w) {
  at::Tensor y = at::matmul(from_local(x, mesh, {Shard{0}}),
                            distribute_tensor(w, mesh, {Replicate{}}));
  return to_local(y).sum(1);
}
