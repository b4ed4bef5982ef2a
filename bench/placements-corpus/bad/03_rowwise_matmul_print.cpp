#include <meshguard/meshguard.h>
#include <ostream>

using namespace meshguard;
std::ostream &operator<<(std::ostream &OS, const at::Tensor &T);

// Row-parallel linear: x Shard(1) times W Shard(0) gives a Partial sum; the
// debug print shows one rank's part.
void debug_rowwise(std::ostream &log, const DeviceMesh &mesh,
                   const at::Tensor &x, const at::Tensor &w) {
  at::Tensor xs = from_local(x, mesh, {Shard{1}});
  at::Tensor ws = distribute_tensor(w, mesh, {Shard{0}});
  at::Tensor y = xs.mm(ws);
  at::Tensor out = to_local(y);
  log << out; // EXPECT: dtensor-partial-local-use
}
