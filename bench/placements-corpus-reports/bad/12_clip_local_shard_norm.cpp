// Source: hiyouga/LlamaFactory#10640, "Fix v1 grad norm and lr log"
// (https://github.com/hiyouga/LlamaFactory/pull/10640): under FSDP2 the
// gradient norm was taken over the local shard only and read with item(),
// "which equals global_norm / sqrt(shard_size)": the logged grad_norm
// depended on the number of GPUs, and the clip coefficient
// max_norm / total_norm was computed per shard, a different coefficient on
// every rank. The fix: reduce to the global norm with full_tensor(), then
// clip with that number.
// Translation: the local norm over each FSDP gradient's shard (to_local),
// then clipping with it.
#include <cmath>
#include <meshguard/meshguard.h>
#include <meshguard/runtime/Parallelize.h>

using namespace meshguard;

void shard_model(torch::nn::Linear &model, const DeviceMesh &mesh) {
  fully_shard(*model, mesh);
}

double clip_grad_norm(torch::nn::Linear &model, double max_norm) {
  at::Tensor squares = torch::zeros({1});
  for (const at::Tensor &p : model->parameters())
    squares = squares + to_local(p.grad()).pow(2).sum();
  double total_norm = std::sqrt(squares.item<double>()); // EXPECT: dtensor-partial-local-use
  double coef = max_norm / (total_norm + 1e-6);
  if (coef < 1.0) {
    for (const at::Tensor &p : model->parameters()) {
      at::Tensor g = p.grad();
      g.mul_(coef);
    }
  }
  return total_norm;
}
