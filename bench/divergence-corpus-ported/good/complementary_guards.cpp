// Two guards that are complements of each other: every rank calls exactly
// one barrier, so the barriers match (a path-sensitive case).
// Ported from: parcoach/parcoach/tests/MPI/basic/src/not_verifiable.c (with the
//   intended `rank % 2 == 0` instead of upstream's `!rank % 2`)
#include <meshguard/meshguard.h>

void half_sync(const c10::intrusive_ptr<c10d::ProcessGroup> &pg) {
  const int rank = pg->getRank();
  if (pg->getSize() < 2)
    return;
  if (rank % 2 == 1)
    pg->barrier()->wait();
  if (rank % 2 == 0)
    pg->barrier()->wait();
}
