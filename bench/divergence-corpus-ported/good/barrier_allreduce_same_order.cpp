// Odd ranks clip their local gradients first, but both sides then issue
// barrier and all-reduce in the same order.
// Ported from: mquinson/MBI/scripts/generators/CollMatchingGenerator.py,
//   CallOrdering_MPI_Barrier_MPI_Allreduce (the correct ordering twin)
#include <meshguard/meshguard.h>

void clip_local(std::vector<at::Tensor> &grads);

void sync_step(const c10::intrusive_ptr<c10d::ProcessGroup> &pg,
               std::vector<at::Tensor> &grads) {
  if (pg->getRank() % 2) {
    clip_local(grads);
    pg->barrier()->wait();
    pg->allreduce(grads)->wait();
  } else {
    pg->barrier()->wait();
    pg->allreduce(grads)->wait();
  }
}
