// Both sides of the parity test all-reduce once: every rank issues the same
// collective sequence.
// Ported from: parcoach/parcoach/tests/MPI/basic/SVG/noerror_allreduce.c
#include <meshguard/meshguard.h>

void log_progress(int rank);

void sync_loss(const c10::intrusive_ptr<c10d::ProcessGroup> &pg,
               std::vector<at::Tensor> &loss) {
  const int rank = pg->getRank();
  if (pg->getSize() < 2)
    return;
  log_progress(rank);
  if (rank % 2)
    pg->allreduce(loss)->wait();
  else
    pg->allreduce(loss)->wait();
}
