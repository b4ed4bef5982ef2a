// Rank 0 decides whether to stop and broadcasts the decision; every rank then
// branches on the broadcast value, so the final all-reduce is reached (or
// skipped) by all of them together.
// Ported from: parcoach/parcoach/tests/MPI/basic/src/CIVL_BcastReduce.c
//   (root sets the value, broadcast, all ranks use it)
#include <meshguard/meshguard.h>

bool should_stop(int step);

void maybe_stop(const meshguard::DeviceMesh &mesh, at::Tensor stop,
                at::Tensor grads, int step) {
  if (mesh.get_rank() == 0)
    stop = at::full({1}, should_stop(step) ? 1 : 0);
  meshguard::dist::broadcast_({stop}, /*src=*/0);
  if (stop.item<int>() != 0)
    return;
  meshguard::dist::all_reduce_({grads});
}
