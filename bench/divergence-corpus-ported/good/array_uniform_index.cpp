// owner[i] == i; the guard reads the element at a uniform index (the last
// slot, world - 1), so every rank takes the same branch.
// Ported from: parcoach/parcoach/tests/MPI/basic/src/index-dep.c (uniform index)
#include <meshguard/meshguard.h>

void rebalance(const c10::intrusive_ptr<c10d::ProcessGroup> &pg) {
  const int world = pg->getSize();
  std::vector<int> owner(world);
  for (int i = 0; i < world; ++i)
    owner[i] = i;
  if (owner[world - 1] > 10)
    pg->barrier()->wait();
}
