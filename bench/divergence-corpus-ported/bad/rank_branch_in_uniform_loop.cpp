// The nested loops are uniform (25 barriers everywhere); inside the second
// loop the barrier is guarded by the rank parity.
// Ported from: parcoach/parcoach/tests/MPI/basic/SVG/ex1loop.c (function g)
#include <meshguard/meshguard.h>

void heartbeat(const c10::intrusive_ptr<c10d::ProcessGroup> &pg) {
  const int r = pg->getRank();
  for (int i = 0; i < 5; i++)
    for (int j = 0; j < 5; j++)
      pg->barrier()->wait();
  for (int i = 0; i < 5; i++) {
    if (r % 2)
      pg->barrier()->wait(); // EXPECT-DIVERGENCE
  }
  pg->barrier()->wait();
}
