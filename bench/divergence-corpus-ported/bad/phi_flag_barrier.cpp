// The role is 1 on rank 0 and 2 elsewhere (merged after an if/else); workers
// sync on a barrier that the coordinator never reaches.
// Ported from: parcoach/parcoach/tests/MPI/basic/src/phi-cond.c
#include <meshguard/meshguard.h>

void start_workers(const c10::intrusive_ptr<c10d::ProcessGroup> &pg) {
  int role = 0;
  if (pg->getSize() < 2)
    return;
  if (!pg->getRank())
    role = 1;
  else
    role = 2;
  if (role == 2)
    pg->barrier()->wait(); // EXPECT-DIVERGENCE
}
