// The barrier is guarded by the world size, which every rank agrees on; the
// second one is unconditional.
// Ported from: parcoach/parcoach/tests/MPI/basic/src/noerror_barrier.c
//   (and noerror_barrier1.c)
#include <meshguard/meshguard.h>

void sync_small_jobs(const c10::intrusive_ptr<c10d::ProcessGroup> &pg) {
  const int size = pg->getSize();
  if (size < 256)
    pg->barrier()->wait();
  pg->barrier()->wait();
}
