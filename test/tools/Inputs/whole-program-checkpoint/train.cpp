#include "ckpt_utils.h"

void save_weight(const meshguard::DeviceMesh &mesh) {
  at::Tensor w = ckpt::make_weight(mesh);
  torch::save(w, "w.pt");
  // Negative twin: the gathered, plain value.
  torch::save(ckpt::gather(w), "full.pt");
}
