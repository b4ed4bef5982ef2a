// The loop bound depends on the rank, but the loop only computes a local sum;
// barrier and reduce come after it, on every rank.
// Ported from: parcoach/parcoach/tests/MPI/basic/src/CIVL_barrierReduce.c
//   (the local-sum prologue, with the collectives in one order)
#include <meshguard/meshguard.h>

void print_total(const at::Tensor &sum);

void prefix_sum(const c10::intrusive_ptr<c10d::ProcessGroup> &pg) {
  const int rank = pg->getRank();
  int localsum = 0;
  for (int i = 0; i <= rank; i++)
    localsum += i;
  std::vector<at::Tensor> sum{at::full({1}, localsum)};
  pg->barrier()->wait();
  pg->reduce(sum)->wait();
  if (rank == 0)
    print_total(sum[0]);
}
