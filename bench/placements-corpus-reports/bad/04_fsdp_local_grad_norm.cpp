// Source: pytorch/torchtitan#766, "fsdp grad norm need to be aggregated
// manually" (https://github.com/pytorch/torchtitan/issues/766).
// The user logged the gradient norm of an FSDP model and saw it differ from
// rank to rank: "gradients are not being aggregated at a global level.
// Manual reduction ... across all ranks is necessary".
// Translation: the norm taken over each parameter's local gradient shard
// (to_local of the Shard(0) FSDP gradient), never reduced.
#include <cmath>
#include <meshguard/meshguard.h>
#include <meshguard/runtime/Parallelize.h>

using namespace meshguard;

void shard_model(torch::nn::Linear &model, const DeviceMesh &mesh) {
  fully_shard(*model, mesh);
}

double total_grad_norm(torch::nn::Linear &model, const DeviceMesh &mesh) {
  at::Tensor squares = torch::zeros({1});
  for (const at::Tensor &p : model->parameters()) {
    at::Tensor g = to_local(p.grad());
    squares = squares + g.pow(2).sum();
  }
  return std::sqrt(squares.item<double>()); // EXPECT: dtensor-partial-local-use
}
