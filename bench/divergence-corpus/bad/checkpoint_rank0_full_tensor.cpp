// Rank 0 writes the checkpoint and gathers the sharded weight only there:
// the other ranks never join the all-gather (pytorch#77562).
#include <meshguard/meshguard.h>

void save_checkpoint(const meshguard::DeviceMesh &mesh, const at::Tensor &w,
                     int epoch) {
  if (mesh.get_rank() == 0) {
    auto full = meshguard::full_tensor(w); // EXPECT-DIVERGENCE
    torch::save(full, "ckpt-" + std::to_string(epoch) + ".pt");
  }
}
