// Simulation parameters live in a struct: `mype` holds the rank, `nproc` the
// world size. The barrier is guarded by `mype`, so ranks 0 and 1 skip it.
// Ported from: parcoach/parcoach/tests/MPI/basic/src/field-sensitive.c
#include <meshguard/meshguard.h>

struct HydroParams {
  int mype;
  int nproc;
  double dt;
};

void init_hydro(HydroParams *H,
                const c10::intrusive_ptr<c10d::ProcessGroup> &pg) {
  H->nproc = pg->getSize();
  H->mype = pg->getRank();
  H->dt = 1e-3;
  if (H->mype > 1)
    pg->barrier()->wait(); // EXPECT-DIVERGENCE
}
