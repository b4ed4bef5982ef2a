// A small layout array holds the world size in slot 0 and the rank in slot 1;
// the halo all-reduce is guarded by slot 1, i.e. by the rank.
// Ported from: parcoach/parcoach/tests/MPI/basic/src/index-dep.c (array element
//   holding a rank-dependent value)
#include <meshguard/meshguard.h>

void exchange_halo(const c10::intrusive_ptr<c10d::ProcessGroup> &pg,
                   std::vector<at::Tensor> &halo) {
  int64_t layout[2];
  layout[0] = pg->getSize();
  layout[1] = pg->getRank();
  if (layout[1] == 0)
    pg->allreduce(halo)->wait(); // EXPECT-DIVERGENCE
}
