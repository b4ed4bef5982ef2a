// Source: snowflakedb/ArcticTraining#62
// (https://github.com/snowflakedb/ArcticTraining/issues/62). The fix asked
// for: the loss reduced across the data-parallel ranks before it is logged
// (full_tensor of the Partial loss).
#include <meshguard/meshguard.h>
#include <meshguard/runtime/Parallelize.h>

using namespace meshguard;

void shard_model(torch::nn::Linear &model, const DeviceMesh &mesh) {
  fully_shard(*model, mesh);
}

double train_step_loss(torch::nn::Linear &model, const DeviceMesh &mesh,
                       const at::Tensor &inputs, const at::Tensor &targets) {
  at::Tensor x = distribute_tensor(inputs, mesh, {Shard{0}});
  at::Tensor y = distribute_tensor(targets, mesh, {Shard{0}});
  at::Tensor loss = at::mse_loss(fully_sharded_forward(model, x), y);
  return full_tensor(loss.detach()).item<double>();
}
