// The early exit tests the world size, so either every rank returns or none
// does.
// Ported from: parcoach/parcoach/tests/MPI/basic/src/loop_barrier.c (its
//   `if (size < 2) return` prologue, with one loop count for everybody)
#include <meshguard/meshguard.h>

void warm_up(const c10::intrusive_ptr<c10d::ProcessGroup> &pg) {
  if (pg->getSize() < 2)
    return;
  for (int i = 1; i < 10; i++)
    pg->barrier()->wait();
}
