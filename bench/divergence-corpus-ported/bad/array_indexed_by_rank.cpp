// owner[i] == i for every slot; reading it at index `rank` gives back the
// rank, so only ranks above 10 reach the barrier.
// Ported from: parcoach/parcoach/tests/MPI/basic/src/index-dep.c
#include <meshguard/meshguard.h>

void rebalance(const c10::intrusive_ptr<c10d::ProcessGroup> &pg) {
  const int world = pg->getSize();
  const int rank = pg->getRank();
  std::vector<int> owner(world);
  for (int i = 0; i < world; ++i)
    owner[i] = i;
  if (owner[rank] > 10)
    pg->barrier()->wait(); // EXPECT-DIVERGENCE
}
