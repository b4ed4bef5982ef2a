// Rank 0 fills the work queue; then every rank scatters and waits at the
// barrier in the same order.
// Ported from: parcoach/parcoach/tests/MPI/basic/src/CIVL_barrierScatter.c (fixed)
#include <meshguard/meshguard.h>

std::vector<at::Tensor> make_work_items(int count);
void log_item(int rank, const at::Tensor &item);

at::Tensor hand_out_work(const c10::intrusive_ptr<c10d::ProcessGroup> &pg) {
  const int rank = pg->getRank();
  std::vector<at::Tensor> mine{at::empty({1})};
  std::vector<std::vector<at::Tensor>> queue(1);
  if (rank == 0)
    queue[0] = make_work_items(pg->getSize());
  pg->scatter(mine, queue)->wait();
  pg->barrier()->wait();
  if (rank != 0)
    log_item(rank, mine[0]);
  return mine[0];
}
