// Source: InternLM/xtuner#1004
// (https://github.com/InternLM/xtuner/pull/1004). The fix of the PR:
// "grouping parameters by device mesh, applying mesh-wise norm calculations,
// performing global reduction" (each group's squares reduced over its own
// mesh with full_tensor, then combined as plain numbers).
#include <cmath>
#include <meshguard/meshguard.h>
#include <meshguard/runtime/Parallelize.h>
#include <vector>

using namespace meshguard;

void shard_vit_and_lm(torch::nn::Linear &vit, torch::nn::Linear &lm) {
  DeviceMesh dp = init_device_mesh("cpu", {4});
  DeviceMesh dp_tp = init_device_mesh("cpu", {2, 2});
  fully_shard(*vit, dp);
  fully_shard(*lm, dp_tp, 0);
}

double group_squares(const std::vector<at::Tensor> &params) {
  double squares = 0;
  for (const at::Tensor &p : params)
    squares += full_tensor(p.grad()).pow(2).sum().item<double>();
  return squares;
}

double clip(torch::nn::Linear &vit, torch::nn::Linear &lm, double max_norm) {
  double total =
      std::sqrt(group_squares(vit->parameters()) + group_squares(lm->parameters()));
  double coef = max_norm / (total + 1e-6);
  if (coef < 1.0) {
    for (const at::Tensor &p : vit->parameters()) {
      at::Tensor g = p.grad();
      g.mul_(coef);
    }
    for (const at::Tensor &p : lm->parameters()) {
      at::Tensor g = p.grad();
      g.mul_(coef);
    }
  }
  return total;
}
