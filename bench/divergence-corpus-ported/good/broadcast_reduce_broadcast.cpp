// Rank 0 sets the value before the broadcast and reads the reduced sum before
// the second broadcast; the collectives themselves are unconditional.
// Ported from: parcoach/parcoach/tests/MPI/basic/src/CIVL_BcastReduce.c
#include <meshguard/meshguard.h>

void sync_counter(const c10::intrusive_ptr<c10d::ProcessGroup> &pg,
                  std::vector<at::Tensor> &num, std::vector<at::Tensor> &sum) {
  const int rank = pg->getRank();
  if (rank == 0)
    num[0] = at::full({1}, 3);
  pg->broadcast(num)->wait();
  sum[0] = num[0].clone();
  pg->reduce(sum)->wait();
  if (rank == 0)
    num[0] = sum[0];
  pg->broadcast(num)->wait();
}
