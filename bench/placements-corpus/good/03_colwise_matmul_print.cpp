#include <meshguard/meshguard.h>
#include <ostream>

using namespace meshguard;
std::ostream &operator<<(std::ostream &OS, const at::Tensor &T);

// Column-parallel: x Replicate times W Shard(1) is Shard(1): the local
// tensor is a block of columns, not a partial sum.
void debug_colwise(std::ostream &log, const DeviceMesh &mesh,
                   const at::Tensor &x, const at::Tensor &w) {
  at::Tensor xs = from_local(x, mesh, {Replicate{}}, /*run_check=*/true);
  at::Tensor ws = distribute_tensor(w, mesh, {Shard{1}});
  log << to_local(xs.mm(ws));
}
