// One rank flushes its local log inside the loop, but nobody leaves: all
// ranks reach the second barrier.
// Ported from: parcoach/parcoach/tests/MPI/basic/src/loop_finalize.c
#include <meshguard/meshguard.h>

void flush_local_log();

void drain(const c10::intrusive_ptr<c10d::ProcessGroup> &pg) {
  const int rank = pg->getRank();
  if (pg->getSize() < 2)
    return;
  pg->barrier()->wait();
  for (int j = 10; j < 20; ++j) {
    if (rank == j)
      flush_local_log();
  }
  pg->barrier()->wait();
}
