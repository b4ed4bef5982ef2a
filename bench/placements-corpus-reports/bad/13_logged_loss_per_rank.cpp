// Source: snowflakedb/ArcticTraining#62, "loss has to be averaged"
// (https://github.com/snowflakedb/ArcticTraining/issues/62): "`loss` has to
// be averaged across ranks before it gets logged since loss is different on
// each DP rank."
// Translation: data parallelism on meshguard's API, the batch a Shard(0)
// DTensor (as fully_shard's forward takes it), the loss a mean over it
// (Partial); the logged number is this rank's part of it (to_local).
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
  return to_local(loss.detach()).item<double>(); // EXPECT: dtensor-partial-local-use
}
