// Rank 0 fills and scatters the work queue, then waits at a barrier; the
// workers wait at the barrier first and scatter afterwards.
// Ported from: parcoach/parcoach/tests/MPI/basic/src/CIVL_barrierScatter.c
#include <meshguard/meshguard.h>

std::vector<at::Tensor> make_work_items(int count);

at::Tensor hand_out_work(const c10::intrusive_ptr<c10d::ProcessGroup> &pg) {
  std::vector<at::Tensor> mine{at::empty({1})};
  std::vector<std::vector<at::Tensor>> queue(1);
  if (pg->getRank() == 0) {
    queue[0] = make_work_items(pg->getSize());
    pg->scatter(mine, queue)->wait(); // EXPECT-DIVERGENCE
    pg->barrier()->wait(); // EXPECT-DIVERGENCE
  } else {
    pg->barrier()->wait(); // EXPECT-DIVERGENCE
    pg->scatter(mine, queue)->wait(); // EXPECT-DIVERGENCE
  }
  return mine[0];
}
