#include <meshguard/meshguard.h>
#include <torch/torch.h>

void syncWeights() {
  at::Tensor W = torch::randn({8});
  meshguard::dist::broadcast_({W}, /*src=*/0);
}
