// The number of synchronised steps comes from the (uniform) config and the
// world size, never from the rank.
// Ported from: parcoach/parcoach/tests/MPI/basic/SVG/inter/barrier_loop.c
#include <meshguard/meshguard.h>

struct TrainConfig {
  int sync_steps;
};

void warm_up(const c10::intrusive_ptr<c10d::ProcessGroup> &pg,
             const TrainConfig &cfg, std::vector<at::Tensor> &probe) {
  for (int i = 0; i < cfg.sync_steps; i++)
    pg->barrier()->wait();
  for (int i = 0; i < pg->getSize(); i++)
    pg->allreduce(probe)->wait();
}
