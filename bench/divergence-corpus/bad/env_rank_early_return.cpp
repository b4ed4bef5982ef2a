// Non-zero ranks (RANK from torchrun) return before the final sync.
#include <cstdlib>
#include <cstring>
#include <meshguard/meshguard.h>

void finish(at::Tensor stats) {
  const char *rank = std::getenv("RANK");
  if (rank && std::strcmp(rank, "0") != 0)
    return;
  meshguard::dist::all_reduce_({stats}); // EXPECT-DIVERGENCE
}
