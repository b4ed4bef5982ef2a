// Every branch of the rank test and of the size tests issues one barrier.
// Ported from: parcoach/parcoach/tests/MPI/basic/SVG/ex1main.c (the balanced
//   `(r+1)%2` test) and SVG/ex1loop.c (function f)
#include <meshguard/meshguard.h>

void sync_phase(const c10::intrusive_ptr<c10d::ProcessGroup> &pg) {
  const int r = pg->getRank();
  const int s = pg->getSize();
  if ((r + 1) % 2)
    pg->barrier()->wait();
  else
    pg->barrier()->wait();
  if (s > 256) {
    pg->barrier()->wait();
  } else {
    int j = 53;
    if (s - j > 34)
      pg->barrier()->wait();
    else
      pg->barrier()->wait();
  }
}
