// Ranks outside the first pair leave; the pair then runs a barrier on the
// *world* group, which the others never join.
// Shape of: MBI CollComGenerator.py (collective on the wrong communicator)
//   and parcoach src/mismatch_barrier_com.c (issue #44 cause (3), twin)
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>

void pair_step(const c10::intrusive_ptr<c10d::ProcessGroup> &world,
               std::vector<at::Tensor> &t) {
  auto pair = world->splitGroup({0, 1});
  if (!pair)
    return;
  pair->allreduce(t)->wait();
  world->barrier()->wait(); // EXPECT-DIVERGENCE
}
