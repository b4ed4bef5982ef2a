// Same parameter struct as field-sensitive.c (`mype` = rank, `nproc` = size);
// the barrier is guarded by `nproc`, which is uniform.
// Ported from: parcoach/parcoach/tests/MPI/basic/src/field-sensitive.c (fixed)
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
  if (H->nproc > 1)
    pg->barrier()->wait();
}
