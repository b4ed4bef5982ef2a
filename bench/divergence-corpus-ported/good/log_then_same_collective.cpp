// Both sides log something different, then run the same broadcast: every
// rank makes the same call.
// Shape of: parcoach/parcoach/tests/MPI/basic/src/mismatch.c (fixed)
#include <cstdio>
#include <meshguard/meshguard.h>

void start_round(const c10::intrusive_ptr<c10d::ProcessGroup> &pg,
                 std::vector<at::Tensor> &params) {
  const int rank = pg->getRank();
  if (rank == 0) {
    std::printf("[%d] sending parameters\n", rank);
    pg->broadcast(params)->wait();
  } else {
    std::printf("[%d] receiving parameters\n", rank);
    pg->broadcast(params)->wait();
  }
  pg->barrier()->wait();
}
