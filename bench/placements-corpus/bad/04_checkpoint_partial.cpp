#include <meshguard/meshguard.h>
#include <ostream>

using namespace meshguard;
std::ostream &operator<<(std::ostream &OS, const at::Tensor &T);

// Saves the accumulated statistics, a Partial sum, from each rank's share.
void save_stats(const DeviceMesh &mesh, const at::Tensor &counts) {
  at::Tensor acc = from_local(counts, mesh, {Partial{}});
  at::Tensor scaled = to_local(acc) * 0.5;
  torch::save(scaled, "stats.pt"); // EXPECT: dtensor-partial-local-use
}
