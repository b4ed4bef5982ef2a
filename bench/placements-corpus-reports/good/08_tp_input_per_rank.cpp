// Source: pytorch/pytorch#119343
// (https://github.com/pytorch/pytorch/issues/119343). The fix from the
// thread: make sure the input of the tensor-parallel module is the same on
// every rank of the TP group (here: broadcast from rank 0 first).
#include <meshguard/meshguard.h>
#include <meshguard/runtime/Parallelize.h>
#include <vector>

using namespace meshguard;

void parallelize_mlp(torch::nn::Linear &up, torch::nn::Linear &down,
                     const DeviceMesh &mesh) {
  parallelize_module(*up, mesh, ColwiseParallel{});
  parallelize_module(*down, mesh, RowwiseParallel{});
}

at::Tensor mlp_step(torch::nn::Linear &up, torch::nn::Linear &down,
                    const DeviceMesh &mesh,
                    const std::vector<at::Tensor> &batches) {
  at::Tensor x = batches[mesh.get_rank()].clone();
  guarded::broadcast_({x}, mesh, 0);
  at::Tensor h = parallel_forward(up, x);
  return parallel_forward(down, h);
}
