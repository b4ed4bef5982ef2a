// Odd ranks run 9 synchronised warm-up steps, even ranks 10: the branches of
// the parity test issue a different number of barriers.
// Ported from: parcoach/parcoach/tests/MPI/basic/src/loop_barrier.c
//   (also mquinson/MBI/Benchmarks/microbenchs/coll-barrier-loop-mismatch.c)
#include <meshguard/meshguard.h>

void warm_up(const c10::intrusive_ptr<c10d::ProcessGroup> &pg) {
  int i = 1, j = 10;
  if (pg->getSize() < 2)
    return;
  if (pg->getRank() % 2) {
    while (i < 10) {
      pg->barrier()->wait(); // EXPECT-DIVERGENCE
      i++;
    }
  } else {
    while (j < 20) {
      pg->barrier()->wait(); // EXPECT-DIVERGENCE
      j++;
    }
  }
}
