// Even ranks reduce while odd ranks broadcast, twice over with the roles
// swapped: two rank-dependent branches that issue different collectives.
// Ported from: parcoach/parcoach/tests/MPI/basic/src/CIVL_BcastReduce_bad.c
#include <meshguard/meshguard.h>

void sync_counter(const c10::intrusive_ptr<c10d::ProcessGroup> &pg,
                  std::vector<at::Tensor> &num, std::vector<at::Tensor> &sum) {
  const int rank = pg->getRank();
  if (rank == 0)
    num[0] = at::full({1}, 3);
  pg->broadcast(num)->wait();
  if (rank % 2 == 0)
    pg->reduce(num)->wait(); // EXPECT-DIVERGENCE
  else
    pg->broadcast(num)->wait(); // EXPECT-DIVERGENCE
  if (rank == 0)
    num[0] = sum[0];
  if (rank % 2 == 0)
    pg->broadcast(num)->wait(); // EXPECT-DIVERGENCE
  else
    pg->reduce(num)->wait(); // EXPECT-DIVERGENCE
}
