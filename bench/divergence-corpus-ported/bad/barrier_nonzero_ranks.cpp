// Every rank but 0 saves its shard and then waits at a barrier; rank 0 never
// enters it, so the others hang (the textbook `if (rank) MPI_Barrier`).
// Ported from: parcoach/parcoach/tests/MPI/basic/src/error2.c
#include <meshguard/meshguard.h>

void save_shard(const at::Tensor &shard, int rank);

void finish_epoch(const c10::intrusive_ptr<c10d::ProcessGroup> &pg,
                  const at::Tensor &shard) {
  const int rank = pg->getRank();
  if (rank) {
    save_shard(shard, rank);
    pg->barrier()->wait(); // EXPECT-DIVERGENCE
  }
}
