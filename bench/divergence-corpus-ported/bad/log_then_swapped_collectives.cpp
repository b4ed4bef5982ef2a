// The root logs, then broadcasts and synchronises; the other ranks log, then
// all-reduce. Each side starts with a printf: every collective of both sides
// is a mismatch and is marked (issue #44's per-collective-line rule).
// Shape of: parcoach/parcoach/tests/MPI/basic/src/mismatch.c (printf-led
//   sides) and MBI CollMatchingGenerator.py CallOrdering_*_nok
#include <cstdio>
#include <meshguard/meshguard.h>

void start_round(const c10::intrusive_ptr<c10d::ProcessGroup> &pg,
                 std::vector<at::Tensor> &params,
                 std::vector<at::Tensor> &grads) {
  const int rank = pg->getRank();
  if (rank == 0) {
    std::printf("[%d] sending parameters\n", rank);
    pg->broadcast(params)->wait(); // EXPECT-DIVERGENCE
    pg->barrier()->wait(); // EXPECT-DIVERGENCE
  } else {
    std::printf("[%d] reducing gradients\n", rank);
    pg->allreduce(grads)->wait(); // EXPECT-DIVERGENCE
  }
}
