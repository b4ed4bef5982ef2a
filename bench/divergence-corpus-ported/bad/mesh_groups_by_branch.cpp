// Odd ranks sync on the world group, even ranks on their data-parallel (mesh
// dim 0) group: two branches that issue different collectives.
// Ported from: parcoach/parcoach/tests/MPI/basic/src/mismatch_barrier_com.c
#include <meshguard/meshguard.h>

void sync_before_eval(const meshguard::DeviceMesh &mesh,
                      const c10::intrusive_ptr<c10d::ProcessGroup> &world) {
  if (world->getSize() < 2)
    return;
  if (mesh.get_rank() % 2)
    world->barrier()->wait(); // EXPECT-DIVERGENCE
  else
    mesh.get_group(0)->barrier()->wait(); // EXPECT-DIVERGENCE
}
