// Batch statistics: broadcast, all-reduce, then a reduce that the last rank
// skips, then a final all-reduce that is matched with the wrong call.
// Ported from: parcoach/parcoach/tests/MPI/basic/src/CIVL_BcastReduce2.c
#include <meshguard/meshguard.h>

void batch_stats(const c10::intrusive_ptr<c10d::ProcessGroup> &pg,
                 std::vector<at::Tensor> &count,
                 std::vector<at::Tensor> &total) {
  const int rank = pg->getRank();
  const int world = pg->getSize();
  if (rank == 0)
    count[0] = at::ones({1});
  pg->broadcast(count)->wait();
  pg->allreduce(count)->wait();
  if (rank != world - 1)
    pg->reduce(total)->wait(); // EXPECT-DIVERGENCE
  pg->allreduce(total)->wait();
}
