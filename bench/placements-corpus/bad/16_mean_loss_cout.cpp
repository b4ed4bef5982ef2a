#include <meshguard/meshguard.h>
#include <ostream>

using namespace meshguard;
std::ostream &operator<<(std::ostream &OS, const at::Tensor &T);

// Prints the epoch's mean loss from the local tensor of a Partial(avg).
void report(std::ostream &os, const DeviceMesh &mesh, const at::Tensor &l) {
  at::Tensor losses = from_local(l, mesh, {Shard{0}});
  at::Tensor mean = losses.mean();
  at::Tensor shown = to_local(mean).detach();
  os << shown; // EXPECT: dtensor-partial-local-use
}
