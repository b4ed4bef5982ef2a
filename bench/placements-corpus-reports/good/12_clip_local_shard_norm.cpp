// Source: hiyouga/LlamaFactory#10640
// (https://github.com/hiyouga/LlamaFactory/pull/10640). The fix of the PR:
// the norm of the DTensor gradients, reduced to the global norm with
// full_tensor(), then the clip with that number.
#include <cmath>
#include <meshguard/meshguard.h>
#include <meshguard/runtime/Parallelize.h>

using namespace meshguard;

void shard_model(torch::nn::Linear &model, const DeviceMesh &mesh) {
  fully_shard(*model, mesh);
}

double clip_grad_norm(torch::nn::Linear &model, double max_norm) {
  at::Tensor squares = model->weight.grad().pow(2).sum();
  squares = squares + model->bias.grad().pow(2).sum();
  double total_norm = std::sqrt(full_tensor(squares).item<double>());
  double coef = max_norm / (total_norm + 1e-6);
  if (coef < 1.0) {
    for (const at::Tensor &p : model->parameters()) {
      at::Tensor g = p.grad();
      g.mul_(coef);
    }
  }
  return total_norm;
}
