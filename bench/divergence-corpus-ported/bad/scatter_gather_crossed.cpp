// Rank 0 scatters then gathers, rank 1 gathers then scatters, and ranks >= 2
// do neither: every one of these collectives is reached by a subset only.
// Ported from: parcoach/parcoach/tests/MPI/basic/src/Aislinn_invalid_order.c
//   (also mquinson/MBI/Benchmarks/microbenchs/coll-mismatch-gather-scatter.c)
#include <meshguard/meshguard.h>

void shuffle_round(const c10::intrusive_ptr<c10d::ProcessGroup> &pg,
                   std::vector<at::Tensor> &out,
                   std::vector<std::vector<at::Tensor>> &all) {
  const int rank = pg->getRank();
  if (rank == 0) {
    pg->scatter(out, all)->wait(); // EXPECT-DIVERGENCE
    pg->gather(all, out)->wait(); // EXPECT-DIVERGENCE
  }
  if (rank == 1) {
    pg->gather(all, out)->wait(); // EXPECT-DIVERGENCE
    pg->scatter(out, all)->wait(); // EXPECT-DIVERGENCE
  }
}
