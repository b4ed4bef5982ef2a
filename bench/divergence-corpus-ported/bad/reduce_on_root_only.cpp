// Only the root calls reduce, as if the ranks that do not receive the result
// did not have to take part in the reduction.
// Ported from: mquinson/MBI/scripts/generators/CollMatchingGenerator.py,
//   CallOrdering_MPI_Reduce_none_nok
#include <meshguard/meshguard.h>

void log_scalar(const at::Tensor &value);

void report_loss(const c10::intrusive_ptr<c10d::ProcessGroup> &pg,
                 std::vector<at::Tensor> &loss) {
  c10d::ReduceOptions opts;
  opts.rootRank = 0;
  if (pg->getRank() == opts.rootRank) {
    pg->reduce(loss, opts)->wait(); // EXPECT-DIVERGENCE
    log_scalar(loss[0]);
  }
}
