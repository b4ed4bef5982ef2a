// Ranks outside a subgroup hold no handle to it (splitGroup gives them
// nullptr) or leave before the members build it: the members run the
// subgroup's collectives together.
// Shape of: MBI CollComGenerator.py (collective on the right communicator);
//   parcoach src/mismatch_barrier_com.c (fixed) (issue #44 cause (3))
#include <torch/csrc/distributed/c10d/FileStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>

void pair_step(const c10::intrusive_ptr<c10d::ProcessGroup> &world,
               std::vector<at::Tensor> &t) {
  auto pair = world->splitGroup({0, 1});
  if (!pair)
    return;
  pair->allreduce(t)->wait();
  pair->barrier()->wait();
}

void first_ranks(const c10::intrusive_ptr<c10d::ProcessGroup> &world,
                 const std::string &path, int n, std::vector<at::Tensor> &t) {
  const int rank = world->getRank();
  if (rank >= n)
    return;
  auto store = c10::make_intrusive<c10d::FileStore>(path, n);
  auto sub = c10::make_intrusive<c10d::ProcessGroupGloo>(store, rank, n);
  sub->allreduce(t)->wait();
}
