// The same aggregates; the barrier is guarded by the world-size field, the
// same on every rank.
// Shape of: parcoach/parcoach/tests/MPI/basic/src/field-sensitive.c (fixed),
//   aggregate initialisation and a returned struct (issue #44 item 3)
#include <meshguard/meshguard.h>

struct DistInfo {
  int rank;
  int world;
};

DistInfo dist_info(const c10::intrusive_ptr<c10d::ProcessGroup> &pg) {
  return DistInfo{pg->getRank(), pg->getSize()};
}

void checkpoint_barrier(const c10::intrusive_ptr<c10d::ProcessGroup> &pg) {
  DistInfo info{pg->getRank(), pg->getSize()};
  if (info.world > 1)
    pg->barrier()->wait();
  const DistInfo again = dist_info(pg);
  if (again.world > 1)
    pg->barrier()->wait();
}
