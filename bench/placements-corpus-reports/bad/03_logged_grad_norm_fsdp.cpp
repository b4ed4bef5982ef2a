// Source: radixark/miles_diffusion#35, "fsdp: materialize clip_grad_norm's
// DTensor before logging" (https://github.com/radixark/miles_diffusion/pull/35).
// With FSDP the gradients are DTensors and their norm is a lazily reduced,
// Partial DTensor; the logging path (.detach() -> .mean().item()) read the
// local shard's value and under-reported train/grad_norm by sqrt(n_shards)
// on every FSDP run. The fix: full_tensor() before logging.
// Translation: libtorch's clip_grad_norm_ returns a double, so the DTensor
// norm is spelled out (the squares of the FSDP gradients summed: Partial);
// item() on a DTensor then = to_local().item().
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
  return std::sqrt(to_local(squares.detach()).mean().item<double>()); // EXPECT: dtensor-partial-local-use
}
