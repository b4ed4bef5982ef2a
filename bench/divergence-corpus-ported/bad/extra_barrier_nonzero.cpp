// After loading a checkpoint, non-zero ranks sync twice (once after the load,
// once after the optimizer state) while rank 0 syncs once.
// Ported from: parcoach/parcoach/tests/MPI/basic/src/mismatch_barrier2.c
#include <meshguard/meshguard.h>

void load_optimizer_state();

void load_and_sync(const c10::intrusive_ptr<c10d::ProcessGroup> &pg) {
  if (pg->getRank()) {
    pg->barrier()->wait(); // EXPECT-DIVERGENCE
    load_optimizer_state();
    pg->barrier()->wait(); // EXPECT-DIVERGENCE
  } else {
    pg->barrier()->wait(); // EXPECT-DIVERGENCE
  }
}

void resume(const c10::intrusive_ptr<c10d::ProcessGroup> &pg) {
  if (pg->getSize() > 1)
    load_and_sync(pg);
}
