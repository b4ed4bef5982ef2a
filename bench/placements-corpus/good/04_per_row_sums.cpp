#include <meshguard/meshguard.h>
#include <ostream>

using namespace meshguard;
std::ostream &operator<<(std::ostream &OS, const at::Tensor &T);

// Sums along the unsharded dim stay Shard(0): each rank prints its rows.
void per_row(std::ostream &os, const DeviceMesh &mesh, const at::Tensor &x) {
  at::Tensor rows = from_local(x, mesh, {Shard{0}});
  at::Tensor sums = rows.sum(1);
  os << to_local(sums);
}
