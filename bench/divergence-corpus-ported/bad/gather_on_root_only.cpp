// Rank 0 gathers the per-rank eval accuracy; the other ranks never call gather.
// Ported from: mquinson/MBI/scripts/generators/CollMatchingGenerator.py,
//   CallOrdering_MPI_Gather_none_nok (collective issued by a subset of ranks)
#include <meshguard/meshguard.h>

at::Tensor local_accuracy();
void write_report(const std::vector<at::Tensor> &per_rank);

void evaluate(const c10::intrusive_ptr<c10d::ProcessGroup> &pg) {
  std::vector<at::Tensor> mine{local_accuracy()};
  if (pg->getRank() == 0) {
    std::vector<std::vector<at::Tensor>> all(1);
    for (int r = 0; r < pg->getSize(); ++r)
      all[0].push_back(at::empty({1}));
    pg->gather(all, mine)->wait(); // EXPECT-DIVERGENCE
    write_report(all[0]);
  }
}
