#include "ckpt_utils.h"

void save_weight(const meshguard::DeviceMesh &mesh) {
  at::Tensor w = ckpt::make_weight(mesh);
  torch::save(w, "w.pt");
  ckpt::save_state(w, "state.pt");
  // Negative twins: the gathered, plain value.
  torch::save(ckpt::gather(w), "full.pt");
  ckpt::save_state(ckpt::gather(w), "full_state.pt");
}
