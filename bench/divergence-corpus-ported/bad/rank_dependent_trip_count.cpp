// Staggered warm-up: the first loop is uniform, but the second runs
// `rank + steps` all-reduces, so higher ranks wait for partners forever.
// Ported from: parcoach/parcoach/tests/MPI/basic/SVG/inter/intra_loop.c
#include <meshguard/meshguard.h>

void warm_up_comm(const c10::intrusive_ptr<c10d::ProcessGroup> &pg,
                  std::vector<at::Tensor> &probe, int64_t steps) {
  for (int64_t i = 0; i < steps; ++i)
    pg->barrier()->wait();
  for (int64_t i = 0; i < pg->getRank() + steps * 10; ++i)
    pg->allreduce(probe)->wait(); // EXPECT-DIVERGENCE
}
