// The pipeline stage is computed by a helper from the rank (0 for the first
// stage, 5 otherwise); only later stages sync on the barrier.
// Ported from: parcoach/parcoach/tests/MPI/basic/SVG/inter/inter_ret.c
#include <meshguard/meshguard.h>

int stage_offset(const c10::intrusive_ptr<c10d::ProcessGroup> &pg) {
  const int rank = pg->getRank();
  int z = 12;
  if (rank > 0)
    z = 5;
  else
    z = 0;
  return z;
}

void pipeline_sync(const c10::intrusive_ptr<c10d::ProcessGroup> &pg) {
  if (stage_offset(pg) > 0)
    pg->barrier()->wait(); // EXPECT-DIVERGENCE
  pg->barrier()->wait();
}
