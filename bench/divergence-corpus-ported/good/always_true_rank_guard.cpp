// The guard mentions the rank but holds on every rank (rank < world size),
// so both collectives are reached everywhere, in the same order.
// Ported from: mquinson/MBI/scripts/generators/CollMatchingGenerator.py,
//   the CallOrdering_*_ok variants (`change_cond = 'rank < nprocs'`)
#include <meshguard/meshguard.h>

void sync_step(const c10::intrusive_ptr<c10d::ProcessGroup> &pg,
               std::vector<at::Tensor> &grads) {
  const int rank = pg->getRank();
  const int nprocs = pg->getSize();
  if (rank < nprocs) {
    pg->barrier()->wait();
    pg->allreduce(grads)->wait();
  }
}
