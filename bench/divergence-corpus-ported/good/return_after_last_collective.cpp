// The spare ranks leave inside the scan loop, but only after the last
// collective: nothing is left for the others to wait on.
// Ported from: parcoach/parcoach/tests/MPI/basic/src/loop_exit2.c (fixed: the
//   second barrier moved before the loop)
#include <meshguard/meshguard.h>

void write_summary(int rank);

void release_spares(const c10::intrusive_ptr<c10d::ProcessGroup> &pg) {
  const int rank = pg->getRank();
  pg->barrier()->wait();
  pg->barrier()->wait();
  for (int j = 10; j < 20; ++j) {
    if (rank == j)
      return;
  }
  write_summary(rank);
}
