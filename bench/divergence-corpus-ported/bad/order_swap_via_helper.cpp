// Rank 0 syncs then reduces; the other ranks call a helper that reduces (on
// either branch of its own parity test) and then syncs: swapped order.
// Ported from: parcoach/parcoach/tests/MPI/basic/src/mismatch.c
#include <meshguard/meshguard.h>

void reduce_then_sync(const c10::intrusive_ptr<c10d::ProcessGroup> &pg,
                      std::vector<at::Tensor> &loss, int rank) {
  if (rank % 2)
    pg->reduce(loss)->wait();
  else
    pg->reduce(loss)->wait();
  pg->barrier()->wait();
}

void report(const c10::intrusive_ptr<c10d::ProcessGroup> &pg,
            std::vector<at::Tensor> &loss) {
  const int rank = pg->getRank();
  if (pg->getSize() < 2)
    return;
  if (rank == 0) {
    pg->barrier()->wait(); // EXPECT-DIVERGENCE
    pg->reduce(loss)->wait(); // EXPECT-DIVERGENCE
  } else {
    reduce_then_sync(pg, loss, rank); // EXPECT-DIVERGENCE
  }
}
