// WORLD_SIZE is the same on every rank.
#include <cstdlib>
#include <meshguard/meshguard.h>

void finish(at::Tensor stats) {
  const char *world = std::getenv("WORLD_SIZE");
  if (!world || std::atoi(world) == 1)
    return;
  meshguard::dist::all_reduce_({stats});
}
