// The helper syncs only on large worlds (a uniform test) and is called by
// every rank.
// Ported from: parcoach/parcoach/tests/MPI/basic/src/mismatch_barrier5.c (fixed:
//   the `if (r % 2)` around the call removed); helper from SVG/ex1main.c
#include <meshguard/meshguard.h>

void sync_if_large(const c10::intrusive_ptr<c10d::ProcessGroup> &pg, int s) {
  if (s > 100)
    pg->barrier()->wait();
}

void after_init(const c10::intrusive_ptr<c10d::ProcessGroup> &pg) {
  const int s = pg->getSize();
  pg->barrier()->wait();
  sync_if_large(pg, s);
}
