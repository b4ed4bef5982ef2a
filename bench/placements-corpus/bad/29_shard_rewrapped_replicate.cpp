#include <meshguard/meshguard.h>
#include <meshguard/runtime/Parallelize.h>
#include <ostream>

using namespace meshguard;
std::ostream &operator<<(std::ostream &OS, const at::Tensor &T);

// Embedding rows sharded for the lookup, then the local rows handed to a
// replicated head as if they were the whole table.
at::Tensor head_input(const DeviceMesh &mesh, const at::Tensor &table) {
  at::Tensor emb = distribute_tensor(table, mesh, {Shard{0}});
  at::Tensor rows = to_local(emb);
  return from_local(rows, mesh, {Replicate{}}); // EXPECT: dtensor-unverified-replicate
}
