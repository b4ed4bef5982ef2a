#include <meshguard/meshguard.h>
#include <ostream>

using namespace meshguard;
std::ostream &operator<<(std::ostream &OS, const at::Tensor &T);

// A metrics helper takes a tensor and reads its value; it is handed one
// rank's share of a Partial accuracy count.
double as_scalar(const at::Tensor &t) { return t.item<double>(); }

double accuracy(const DeviceMesh &mesh, const at::Tensor &hits) {
  at::Tensor h = from_local(hits, mesh, {Shard{0}});
  return as_scalar(to_local(h.sum())); // EXPECT: dtensor-partial-local-use
}
