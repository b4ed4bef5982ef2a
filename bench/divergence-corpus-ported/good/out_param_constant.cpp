// The helpers read the rank but what reaches the guards is a constant (out
// parameter set to 0) or the caller's own uniform copy (by-value parameter).
// Ported from: parcoach/parcoach/tests/MPI/basic/SVG/inter/inter_sideeffect.c
//   (the `NoSideEffect` and `falseSideEffect` cases)
#include <meshguard/meshguard.h>

void log_rank(int rank);

void reset_counter(const c10::intrusive_ptr<c10d::ProcessGroup> &pg, int *out) {
  log_rank(pg->getRank());
  *out = 0;
}

void overwrite_copy(const c10::intrusive_ptr<c10d::ProcessGroup> &pg, int a) {
  a = pg->getRank();
  log_rank(a);
}

void sync_flags(const c10::intrusive_ptr<c10d::ProcessGroup> &pg, int steps) {
  int b = steps;
  overwrite_copy(pg, b);
  if (b > 0)
    pg->barrier()->wait();
  int c = 0;
  reset_counter(pg, &c);
  if (c > 0)
    pg->barrier()->wait();
}
