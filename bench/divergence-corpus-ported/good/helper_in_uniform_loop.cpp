// A uniform loop with a barrier and a (collective-free) recursive helper,
// followed by a barrier helper that every rank calls.
// Ported from: parcoach/parcoach/tests/MPI/basic/SVG/inter_example_loop.c
//   (without its final `if (rank % 2)` barrier)
#include <meshguard/meshguard.h>

void sync_all(const c10::intrusive_ptr<c10d::ProcessGroup> &pg) {
  pg->barrier()->wait();
}

void unroll(int i) {
  while (i < 3)
    unroll(++i);
}

void epoch_end(const c10::intrusive_ptr<c10d::ProcessGroup> &pg) {
  for (int i = 0; i < 2; i++) {
    pg->barrier()->wait();
    unroll(i);
  }
  sync_all(pg);
}
