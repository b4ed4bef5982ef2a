// Even ranks below 10 (RANK from torchrun) throw inside their retry loop and
// never reach the final all-reduce.
// Ported from: parcoach/parcoach/tests/MPI/basic/src/loop_exit.c
#include <cstdlib>
#include <stdexcept>
#include <meshguard/meshguard.h>

void finalize_metrics(at::Tensor metrics) {
  const char *env = std::getenv("RANK");
  const int rank = env ? std::atoi(env) : 0;
  int i = 1, j = 10;
  if (rank % 2) {
    while (i < 10)
      i++;
  } else {
    while (j < 20) {
      if (rank < 10)
        throw std::runtime_error("shard missing");
      j++;
    }
  }
  meshguard::dist::all_reduce_({metrics}); // EXPECT-DIVERGENCE
}
