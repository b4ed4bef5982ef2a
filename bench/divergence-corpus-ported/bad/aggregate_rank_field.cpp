// The rank and world size travel in an aggregate built with braces; the
// barrier is guarded by the rank field (ranks > 0 skip it).
// Shape of: parcoach/parcoach/tests/MPI/basic/src/field-sensitive.c with
//   aggregate initialisation (issue #44 item 3)
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
  if (info.rank == 0)
    pg->barrier()->wait(); // EXPECT-DIVERGENCE
  const DistInfo again = dist_info(pg);
  if (again.rank != 0)
    pg->barrier()->wait(); // EXPECT-DIVERGENCE
}
