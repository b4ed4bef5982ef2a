// The helper itself is fine (an unconditional barrier), but only odd ranks
// call it.
// Ported from: parcoach/parcoach/tests/MPI/basic/SVG/inter_example_false_negative.c
#include <meshguard/meshguard.h>

void sync_all(const c10::intrusive_ptr<c10d::ProcessGroup> &pg) {
  pg->barrier()->wait();
}

void log_progress(int rank, int step);

void after_step(const c10::intrusive_ptr<c10d::ProcessGroup> &pg, int step) {
  const int rank = pg->getRank();
  log_progress(rank, step);
  if (rank % 2)
    sync_all(pg); // EXPECT-DIVERGENCE
}
