// The first parity test is balanced (the helper's barrier on one side, an
// inline barrier on the other); the second calls the helper on odd ranks only.
// Ported from: parcoach/parcoach/tests/MPI/basic/src/mismatch_barrier3.c
#include <meshguard/meshguard.h>

void sync_all(const c10::intrusive_ptr<c10d::ProcessGroup> &pg) {
  pg->barrier()->wait();
}

void two_phase_commit(const c10::intrusive_ptr<c10d::ProcessGroup> &pg) {
  const int r = pg->getRank();
  if (r % 2)
    sync_all(pg);
  else
    pg->barrier()->wait();
  if (r % 2)
    sync_all(pg); // EXPECT-DIVERGENCE
}
