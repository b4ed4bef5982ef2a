// Rank 0 sends and rank 1 receives before the all-reduce; every other rank
// only all-reduces. Each branch issues the collective exactly once, after the
// matching point-to-point half.
// Ported from: mquinson/MBI/scripts/generators/CollP2PMatchingGenerator.py
//   (the correct ordering of its rank 0 / rank 1 branches)
#include <meshguard/meshguard.h>

void exchange(const c10::intrusive_ptr<c10d::ProcessGroup> &pg,
              std::vector<at::Tensor> &msg, std::vector<at::Tensor> &stats) {
  const int rank = pg->getRank();
  if (rank == 0) {
    pg->send(msg, /*DstRank=*/1, /*Tag=*/3)->wait();
    pg->allreduce(stats)->wait();
  } else if (rank == 1) {
    pg->recv(msg, /*SrcRank=*/0, /*Tag=*/3)->wait();
    pg->allreduce(stats)->wait();
  } else {
    pg->allreduce(stats)->wait();
  }
}
