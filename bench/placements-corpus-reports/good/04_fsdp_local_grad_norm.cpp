// Source: pytorch/torchtitan#766, "fsdp grad norm need to be aggregated
// manually" (https://github.com/pytorch/torchtitan/issues/766).
// The fix asked for in the thread: reduce the local sums of squares across
// the ranks before the square root.
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
  guarded::all_reduce_({squares}, mesh);
  return std::sqrt(squares.item<double>());
}
