// Source: pytorch/pytorch#119343, "Use Dtensor and ColwiseParallel api to do
// Tensor Parallel for llama2 model but got communication error."
// (https://github.com/pytorch/pytorch/issues/119343). The user combined data
// parallelism (a different random batch on each rank) with ColwiseParallel /
// RowwiseParallel, whose plain input is taken as replicated: each rank fed
// its own batch; the maintainers: the styles assume replicated inputs and
// nothing checks it; the user: "a little bit confusing like it's kind of
// 'silent failure'".
// Translation: an MLP's up projection column-parallel, down projection
// row-parallel, and the data-parallel loader's batch of this rank.
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
  at::Tensor x = batches[mesh.get_rank()];
  at::Tensor h = parallel_forward(up, x); // EXPECT: dtensor-unverified-replicate
  return parallel_forward(down, h);
}
