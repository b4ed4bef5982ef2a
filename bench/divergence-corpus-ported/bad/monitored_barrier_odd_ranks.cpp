// Odd ranks run a monitored barrier to report stragglers; even ranks skip it.
// Ported from: parcoach/parcoach/tests/MPI/basic/src/mismatch_barrier.c
#include <meshguard/meshguard.h>

void check_stragglers(const c10::intrusive_ptr<c10d::ProcessGroup> &pg) {
  if (pg->getSize() < 2)
    return;
  if (pg->getRank() % 2)
    pg->monitoredBarrier(c10d::BarrierOptions(), /*WaitAllRanks=*/true); // EXPECT-DIVERGENCE
}
