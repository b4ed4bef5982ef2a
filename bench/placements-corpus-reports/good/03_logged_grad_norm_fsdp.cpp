// Source: radixark/miles_diffusion#35, "fsdp: materialize clip_grad_norm's
// DTensor before logging" (https://github.com/radixark/miles_diffusion/pull/35).
// The fix of the PR: full_tensor() before logging.
#include <cmath>
#include <meshguard/meshguard.h>
#include <meshguard/runtime/Parallelize.h>

using namespace meshguard;

void shard_model(torch::nn::Linear &model, const DeviceMesh &mesh) {
  fully_shard(*model, mesh);
}

double grad_norm_for_logging(torch::nn::Linear &model) {
  at::Tensor squares =
      model->weight.grad().pow(2).sum() + model->bias.grad().pow(2).sum();
  return std::sqrt(full_tensor(squares.detach()).mean().item<double>());
}
