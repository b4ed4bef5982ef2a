#include <meshguard/meshguard.h>
#include <meshguard/runtime/Parallelize.h>
#include <ostream>

using namespace meshguard;
std::ostream &operator<<(std::ostream &OS, const at::Tensor &T);

// A logging wrapper over to_local(), used on the mean of a batch-sharded
// loss (Partial).
at::Tensor local(const at::Tensor &t) { return to_local(t); }

void log_loss(std::ostream &os, const DeviceMesh &mesh, const at::Tensor &per_sample) {
  at::Tensor losses = from_local(per_sample, mesh, {Shard{0}});
  os << local(losses.mean()); // EXPECT: dtensor-partial-local-use
}
