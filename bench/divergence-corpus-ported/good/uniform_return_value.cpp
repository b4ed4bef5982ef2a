// The guard is the return value of a helper computed from a uniform input.
// Ported from: parcoach/parcoach/tests/MPI/basic/SVG/inter/inter_ret.c
//   (the `retAny(argc)` case)
#include <meshguard/meshguard.h>

int tokens_per_step(int global_batch) { return global_batch * 54; }

void maybe_sync(const c10::intrusive_ptr<c10d::ProcessGroup> &pg, int global_batch) {
  pg->barrier()->wait();
  if (global_batch > 0)
    pg->barrier()->wait();
  if (tokens_per_step(global_batch) > 0)
    pg->barrier()->wait();
}
