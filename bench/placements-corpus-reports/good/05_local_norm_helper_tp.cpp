// Source: ByteDance-Seed/VeOmni#1086
// (https://github.com/ByteDance-Seed/VeOmni/pull/1086), review of
// veomni/distributed/clip_grad_norm.py. Fixed: a DTensor gradient is read
// whole (full_tensor) before its squares are summed.
#include <cmath>
#include <meshguard/meshguard.h>
#include <meshguard/runtime/Parallelize.h>

using namespace meshguard;

void parallelize(torch::nn::Linear &model, const DeviceMesh &mesh) {
  parallelize_module(*model, mesh, ColwiseParallel{});
}

at::Tensor grad_squares(const at::Tensor &grad) {
  at::Tensor g = is_dtensor(grad) ? full_tensor(grad) : grad;
  return g.pow(2).sum();
}

double clip_norm(torch::nn::Linear &model) {
  at::Tensor total = torch::zeros({1});
  for (const at::Tensor &p : model->parameters())
    total = total + grad_squares(p.grad());
  return std::sqrt(total.item<double>());
}
