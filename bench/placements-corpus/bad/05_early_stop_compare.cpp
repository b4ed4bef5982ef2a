#include <meshguard/meshguard.h>
#include <ostream>

using namespace meshguard;
std::ostream &operator<<(std::ostream &OS, const at::Tensor &T);

// Early stopping compares each rank's partial loss with the threshold: the
// ranks disagree about stopping.
bool should_stop(const DeviceMesh &mesh, const at::Tensor &residual) {
  at::Tensor r = from_local(residual, mesh, {Shard{0}});
  at::Tensor total = r.sum();
  at::Tensor done = to_local(total) > 0.01; // EXPECT: dtensor-partial-local-use
  return done.item<double>() > 0;
}
