// Ranks 10..19 are "spares" and leave inside the scan loop, before the final
// barrier that every other rank waits in.
// Ported from: parcoach/parcoach/tests/MPI/basic/src/loop_exit2.c
#include <meshguard/meshguard.h>

void release_spares(const c10::intrusive_ptr<c10d::ProcessGroup> &pg) {
  const int rank = pg->getRank();
  if (pg->getSize() < 2)
    return;
  pg->barrier()->wait();
  for (int j = 10; j < 20; ++j) {
    if (rank == j)
      return;
  }
  pg->barrier()->wait(); // EXPECT-DIVERGENCE
}
