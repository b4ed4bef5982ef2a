// Rank 0 writes the checkpoint (local I/O only), then every rank joins the
// monitored barrier.
// Ported from: parcoach/parcoach/tests/MPI/basic/src/mismatch_barrier.c (fixed:
//   the rank test guards local work, not the barrier)
#include <meshguard/meshguard.h>

void write_checkpoint(const at::Tensor &weights);

void checkpoint(const c10::intrusive_ptr<c10d::ProcessGroup> &pg,
                const at::Tensor &weights) {
  if (pg->getRank() == 0)
    write_checkpoint(weights);
  pg->monitoredBarrier(c10d::BarrierOptions(), /*WaitAllRanks=*/true);
}
