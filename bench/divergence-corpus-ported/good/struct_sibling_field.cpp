// One field of the struct holds the rank; the collectives are guarded by the
// other fields, which are computed from uniform inputs only.
// Ported from: parcoach/parcoach/tests/MPI/basic/SVG/inter/intra_struct.c
//   (the `s.c` / `argc` guards; the `s.u` = rank guard is left out)
#include <meshguard/meshguard.h>

struct StepInfo {
  int accum;
  char phase;
  double scale;
  int owner;
};

void sync_step(const c10::intrusive_ptr<c10d::ProcessGroup> &pg, int steps) {
  StepInfo s;
  s.accum = steps * 2;
  s.phase = steps / 2;
  s.scale = s.phase * s.accum;
  s.owner = pg->getRank();
  if (steps > 2)
    pg->barrier()->wait();
  if (s.phase % 5 == 0)
    pg->barrier()->wait();
}
