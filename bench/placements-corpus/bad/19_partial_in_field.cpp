#include <meshguard/meshguard.h>
#include <ostream>
#include <utility>

using namespace meshguard;
std::ostream &operator<<(std::ostream &OS, const at::Tensor &T);

// A Partial sum kept in a struct of metrics, read back as the value.
struct Stats {
  at::Tensor total;
};

double mean_of(const DeviceMesh &mesh, const at::Tensor &rows, Stats &s) {
  s.total = from_local(rows, mesh, {Shard{0}}).sum();
  return to_local(s.total).item<double>(); // EXPECT: dtensor-partial-local-use
}
