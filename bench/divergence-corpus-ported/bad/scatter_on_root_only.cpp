// The root scatters the data shards, but the workers wait for theirs with a
// point-to-point recv: the scatter is issued by rank 0 only.
// Ported from: mquinson/MBI/scripts/generators/CollP2PMatchingGenerator.py
//   (collective on one side, P2P on the other) and CollMatchingGenerator.py
//   CallOrdering_MPI_Scatter_none_nok
#include <meshguard/meshguard.h>

std::vector<at::Tensor> split_dataset(int parts);

at::Tensor distribute_shards(const c10::intrusive_ptr<c10d::ProcessGroup> &pg) {
  std::vector<at::Tensor> shard{at::empty({1024})};
  if (pg->getRank() == 0) {
    std::vector<std::vector<at::Tensor>> parts{split_dataset(pg->getSize())};
    pg->scatter(shard, parts)->wait(); // EXPECT-DIVERGENCE
  } else {
    pg->recv(shard, /*SrcRank=*/0, /*Tag=*/7)->wait();
  }
  return shard[0];
}
