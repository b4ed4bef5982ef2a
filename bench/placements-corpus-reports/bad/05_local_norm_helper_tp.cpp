// Source: ByteDance-Seed/VeOmni#1086, "[dist, parallel] fix: correct DDP
// gradient sync under Ulysses SP"
// (https://github.com/ByteDance-Seed/VeOmni/pull/1086), review of
// veomni/distributed/clip_grad_norm.py: the gradient-norm helper takes
// `param.grad.to_local() if isinstance(param.grad, DTensor) else param.grad`,
// and the reviewer notes that with tensor parallelism under it "the local
// norm below ... would cover this rank's shard alone".
// Translation: a column-parallel Linear (its weight and bias gradients are
// Shard(0) DTensors) and the helper as written.
#include <cmath>
#include <meshguard/meshguard.h>
#include <meshguard/runtime/Parallelize.h>

using namespace meshguard;

void parallelize(torch::nn::Linear &model, const DeviceMesh &mesh) {
  parallelize_module(*model, mesh, ColwiseParallel{});
}

at::Tensor grad_squares(const at::Tensor &grad) {
  at::Tensor g = is_dtensor(grad) ? to_local(grad) : grad;
  return g.pow(2).sum();
}

double clip_norm(torch::nn::Linear &model) {
  at::Tensor total = torch::zeros({1});
  for (const at::Tensor &p : model->parameters())
    total = total + grad_squares(p.grad());
  return std::sqrt(total.item<double>()); // EXPECT: dtensor-partial-local-use
}
