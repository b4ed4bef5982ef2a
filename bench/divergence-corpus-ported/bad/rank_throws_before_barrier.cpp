// Rank 0 gives up when it finds no checkpoint; the others wait for it in
// the barrier. (A throw that only some ranks take is a divergence.)
// Shape of: parcoach/parcoach/tests/MPI/basic/src/loop_exit.c (rank exit)
//   with a c10d group built from a store (issue #44 cause (2))
#include <cstdlib>
#include <stdexcept>
#include <torch/csrc/distributed/c10d/FileStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>

bool has_checkpoint(int rank);

void resume(const std::string &path, int size) {
  const int rank = std::atoi(std::getenv("RANK"));
  auto store = c10::make_intrusive<c10d::FileStore>(path, size);
  c10d::ProcessGroupGloo pg(store, rank, size);
  if (rank == 0 && !has_checkpoint(rank))
    throw std::runtime_error("no checkpoint");
  pg.barrier()->wait(); // EXPECT-DIVERGENCE
}
