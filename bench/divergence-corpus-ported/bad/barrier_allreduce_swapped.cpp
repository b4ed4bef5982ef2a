// Odd ranks synchronise before reducing the gradients, even ranks after: the
// barrier of one side is matched with the all-reduce of the other.
// Ported from: mquinson/MBI/scripts/generators/CollMatchingGenerator.py,
//   CallOrdering_MPI_Barrier_MPI_Allreduce_nok; same shape with MPI_Reduce in
//   parcoach/parcoach/tests/MPI/basic/src/CIVL_barrierReduce.c
#include <meshguard/meshguard.h>

void sync_step(const c10::intrusive_ptr<c10d::ProcessGroup> &pg,
               std::vector<at::Tensor> &grads) {
  if (pg->getRank() % 2) {
    pg->barrier()->wait(); // EXPECT-DIVERGENCE
    pg->allreduce(grads)->wait(); // EXPECT-DIVERGENCE
  } else {
    pg->allreduce(grads)->wait(); // EXPECT-DIVERGENCE
    pg->barrier()->wait(); // EXPECT-DIVERGENCE
  }
}
