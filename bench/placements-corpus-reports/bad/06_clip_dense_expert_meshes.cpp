// Sources: NVIDIA/Megatron-LM#6489, "fix(optimizer): support MFSDP v2
// gradient clipping across dense and expert meshes"
// (https://github.com/NVIDIA/Megatron-LM/pull/6489): dense gradients are
// DTensors on all ranks, expert gradients on the expert-data-parallel
// stripe, and the gradient-statistics helpers assumed one mesh; and
// pytorch/pytorch#180346, "[DTensor] clip_grad_norm_ fails when per-parameter
// norms come from different DeviceMesh objects"
// (https://github.com/pytorch/pytorch/issues/180346).
// Translation: dense weight Shard(0) over the 4 ranks, expert weight
// Shard(0) over the expert mesh's data-parallel dim, one clip_grad_norm_.
#include <meshguard/meshguard.h>
#include <utility>

using namespace meshguard;

std::pair<at::Tensor, at::Tensor> place_weights(const at::Tensor &dense_w,
                                                const at::Tensor &expert_w) {
  DeviceMesh world = init_device_mesh("cpu", {4});
  DeviceMesh experts = init_device_mesh("cpu", {2, 2});
  return {distribute_tensor(dense_w, world, {Shard{0}}),
          distribute_tensor(expert_w, experts, {Replicate{}, Shard{0}})};
}

double clip_all(const at::Tensor &dense, const at::Tensor &expert,
                double max_norm) {
  return torch::nn::utils::clip_grad_norm_({dense, expert}, max_norm); // EXPECT: dtensor-mixed-meshes
}
