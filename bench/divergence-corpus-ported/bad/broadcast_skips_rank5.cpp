// Rank 0 computes the learning rate and broadcasts it, but a leftover debug
// guard keeps rank 5 out of the broadcast: hangs with more than 5 ranks.
// Ported from: parcoach/parcoach/tests/MPI/basic/src/CIVL_bcast_bad.c
#include <meshguard/meshguard.h>

at::Tensor lr_from_schedule(int step);

void share_lr(const c10::intrusive_ptr<c10d::ProcessGroup> &pg,
              std::vector<at::Tensor> &lr, int step) {
  const int rank = pg->getRank();
  if (rank == 0)
    lr[0] = lr_from_schedule(step);
  if (rank != 5)
    pg->broadcast(lr)->wait(); // EXPECT-DIVERGENCE
}
