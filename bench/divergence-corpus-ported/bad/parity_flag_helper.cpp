// A flag is set from the rank parity in an if/else; the helper (which reduces
// only on large worlds) is then called when the flag is 1, i.e. on odd ranks.
// Ported from: parcoach/parcoach/tests/MPI/basic/src/MPIexample.c
//   (with the helper of tests/MPI/basic/src/mismatch_barrier5.c)
#include <meshguard/meshguard.h>

void reduce_if_large(const c10::intrusive_ptr<c10d::ProcessGroup> &pg,
                     std::vector<at::Tensor> &t, int world) {
  if (world > 256)
    pg->reduce(t)->wait();
}

void checkpoint_stats(const c10::intrusive_ptr<c10d::ProcessGroup> &pg,
                      std::vector<at::Tensor> &t) {
  const int world = pg->getSize();
  int n;
  if (pg->getRank() % 2)
    n = 1;
  else
    n = 2;
  if (n == 1)
    reduce_if_large(pg, t, world); // EXPECT-DIVERGENCE
  pg->barrier()->wait();
}
