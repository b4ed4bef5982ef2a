// A configuration flag is the same on every rank.
#include <meshguard/meshguard.h>

struct Config {
  bool shard_embeddings = true;
  int eval_every = 100;
};

at::Tensor init(const Config &cfg, const meshguard::DeviceMesh &mesh,
                const at::Tensor &full) {
  if (cfg.shard_embeddings)
    return meshguard::distribute_tensor(full, mesh, {meshguard::Shard{0}});
  return meshguard::distribute_tensor(full, mesh, {meshguard::Replicate{}});
}
