// Source: InternLM/xtuner#1004, "[Feature][Fix] Enhance gradient handling
// for hybrid/tensor parallelism" (https://github.com/InternLM/xtuner/pull/1004):
// "Existing _foreach operators fail when parameters reside on different
// device meshes (common in hybrid parallelism setups like FSDP+TP)", e.g. a
// ViT with pure FSDP and a language model with FSDP+TP, clipped together.
// Translation: the vision tower fully sharded on the 4-rank data-parallel
// mesh, the language model on the data-parallel dim of a 2x2 (dp, tp) mesh,
// one clip_grad_norm_ over all parameters.
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

double clip(torch::nn::Linear &vit, torch::nn::Linear &lm, double max_norm) {
  std::vector<at::Tensor> params = vit->parameters();
  for (const at::Tensor &p : lm->parameters())
    params.push_back(p);
  return torch::nn::utils::clip_grad_norm_(params, max_norm); // EXPECT: dtensor-mixed-meshes
}
