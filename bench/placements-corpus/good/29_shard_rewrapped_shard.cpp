#include <meshguard/meshguard.h>
#include <meshguard/runtime/Parallelize.h>
#include <ostream>

using namespace meshguard;
std::ostream &operator<<(std::ostream &OS, const at::Tensor &T);

// The local rows wrapped back with the placement they have.
at::Tensor head_input(const DeviceMesh &mesh, const at::Tensor &table) {
  at::Tensor emb = distribute_tensor(table, mesh, {Shard{0}});
  at::Tensor rows = to_local(emb);
  return from_local(rows, mesh, {Shard{0}});
}
