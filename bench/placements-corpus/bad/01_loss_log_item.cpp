#include <meshguard/meshguard.h>
#include <ostream>

using namespace meshguard;
std::ostream &operator<<(std::ostream &OS, const at::Tensor &T);

// Logs the loss of a data-parallel step: each rank's rows are a Shard(0)
// DTensor, the mean over them is Partial(avg).
double step_loss(const DeviceMesh &mesh, const at::Tensor &pred,
                 const at::Tensor &target) {
  at::Tensor err = from_local(pred - target, mesh, {Shard{0}});
  at::Tensor loss = err.pow(2).mean();
  return to_local(loss).item<double>(); // EXPECT: dtensor-partial-local-use
}
