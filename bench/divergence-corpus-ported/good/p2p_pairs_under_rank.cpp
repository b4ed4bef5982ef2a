// Pipeline forward: each stage receives from the previous one and sends to
// the next one under rank tests (matching send/recv pairs, not collectives),
// then every rank all-reduces the loss.
// Ported from: mquinson/MBI/scripts/generators/P2PMatchingGenerator.py
//   (send on rank 0, recv on rank 1: the correct pairing)
#include <meshguard/meshguard.h>

at::Tensor run_stage(const at::Tensor &act);

void pipeline_forward(const c10::intrusive_ptr<c10d::ProcessGroup> &pg,
                      std::vector<at::Tensor> &act,
                      std::vector<at::Tensor> &loss) {
  const int rank = pg->getRank();
  const int world = pg->getSize();
  if (rank > 0)
    pg->recv(act, rank - 1, /*Tag=*/0)->wait();
  act[0] = run_stage(act[0]);
  if (rank < world - 1)
    pg->send(act, rank + 1, /*Tag=*/0)->wait();
  pg->allreduce(loss)->wait();
}
