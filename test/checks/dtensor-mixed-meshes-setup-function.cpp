// RUN: %check_meshguard %s dtensor-mixed-meshes %t -- -- -I%stubs

// Modules put on their meshes in a setup function of the file and used in
// another function that no call links to it (issue #44, the users' reports
// corpus: a ViT and a language model sharded on two meshes, clipped
// together): a module parameter that its own function does not distribute
// takes the mesh that the one function of the file distributing a
// parameter of the same name and module type puts it on (a declared
// heuristic: docs/checks/dtensor-mixed-meshes.md).

#include <meshguard/meshguard.h>
#include <meshguard/runtime/Parallelize.h>
#include <vector>

using meshguard::DeviceMesh;
using meshguard::Replicate;
using meshguard::Shard;

void shard_vit_and_lm(torch::nn::Linear &vit, torch::nn::Linear &lm) {
  DeviceMesh dp = meshguard::init_device_mesh("cpu", {4});
  DeviceMesh dp_tp = meshguard::init_device_mesh("cpu", {2, 2});
  meshguard::fully_shard(*vit, dp);
  meshguard::fully_shard(*lm, dp_tp, 0);
}

// The language model applied to a batch on the data-parallel mesh.
at::Tensor lm_on_dp_batch(torch::nn::Linear &lm, const at::Tensor &batch) {
  DeviceMesh dp = meshguard::init_device_mesh("cpu", {4});
  auto x = meshguard::distribute_tensor(batch, dp, {Shard{0}});
  return lm(x);
  // CHECK-NOTES: :[[@LINE-1]]:10: warning: the module's forward combines DTensors on different meshes: 'lm' on mesh [2, 2] and 'x' on mesh [4]
  // CHECK-NOTES: :[[@LINE-9]]:3: note: 'lm' is put on mesh [2, 2] here
  // CHECK-NOTES: :[[@LINE-4]]:12: note: 'x' is put on mesh [4] here
}

// Negative twins.

// One model's parameters clipped alone.
double clip_vit(torch::nn::Linear &vit, double max_norm) {
  std::vector<at::Tensor> params = vit->parameters();
  for (const at::Tensor &p : vit->parameters())
    params.push_back(p);
  return torch::nn::utils::clip_grad_norm_(params, max_norm);
}

// Each model's gradients on their own.
at::Tensor vit_grads(torch::nn::Linear &vit) {
  return at::stack({vit->weight.grad(), vit->bias.grad()});
}

// The batch on the language model's own mesh.
at::Tensor lm_on_its_mesh(torch::nn::Linear &lm, const at::Tensor &batch) {
  DeviceMesh dp_tp = meshguard::init_device_mesh("cpu", {2, 2});
  auto x = meshguard::distribute_tensor(batch, dp_tp, {Shard{0}, Replicate{}});
  return lm(x);
}

// Modules of other names: nothing is known of their meshes.
at::Tensor other_grads(torch::nn::Linear &encoder, torch::nn::Linear &decoder) {
  return at::stack({encoder->weight.grad(), decoder->weight.grad()});
}

// The same vector with both modules sharded in this function.
double shard_and_clip(torch::nn::Linear &enc, torch::nn::Linear &dec,
                      double max_norm) {
  DeviceMesh dp = meshguard::init_device_mesh("cpu", {4});
  DeviceMesh grid = meshguard::init_device_mesh("cpu", {2, 2});
  meshguard::fully_shard(*enc, dp);
  meshguard::fully_shard(*dec, grid, 0);
  std::vector<at::Tensor> params = enc->parameters();
  for (const at::Tensor &p : dec->parameters())
    params.push_back(p);
  return torch::nn::utils::clip_grad_norm_(params, max_norm);
  // CHECK-NOTES: :[[@LINE-1]]:10: warning: 'torch::nn::utils::clip_grad_norm_' is given a list that holds DTensors on different meshes: 'enc' on mesh [4] and 'dec' on mesh [2, 2]
  // CHECK-NOTES: :[[@LINE-7]]:3: note: 'enc' is put on mesh [4] here
  // CHECK-NOTES: :[[@LINE-7]]:3: note: 'dec' is put on mesh [2, 2] here
}

// Twin: both on one mesh.
double shard_and_clip_one_mesh(torch::nn::Linear &enc, torch::nn::Linear &dec,
                               double max_norm) {
  DeviceMesh dp = meshguard::init_device_mesh("cpu", {4});
  meshguard::fully_shard(*enc, dp);
  meshguard::fully_shard(*dec, dp);
  std::vector<at::Tensor> params = enc->parameters();
  for (const at::Tensor &p : dec->parameters())
    params.push_back(p);
  return torch::nn::utils::clip_grad_norm_(params, max_norm);
}

// Functions that make no placement call themselves: analysed because the
// file's setup function distributes their module parameters (the users'
// reports corpus, bad/11).
at::Tensor stacked_grads(torch::nn::Linear &vit, torch::nn::Linear &lm) {
  return at::stack({vit->weight.grad(), lm->weight.grad()});
  // CHECK-NOTES: :[[@LINE-1]]:10: warning: 'at::stack' is given a list that holds DTensors on different meshes: 'vit->weight.grad()' on mesh [4] and 'lm->weight.grad()' on mesh [2, 2]
  // CHECK-NOTES: :[[@LINE-75]]:3: note: 'vit->weight.grad()' is put on mesh [4] here
  // CHECK-NOTES: :[[@LINE-75]]:3: note: 'lm->weight.grad()' is put on mesh [2, 2] here
}

double clip(torch::nn::Linear &vit, torch::nn::Linear &lm, double max_norm) {
  std::vector<at::Tensor> params = vit->parameters();
  for (const at::Tensor &p : lm->parameters())
    params.push_back(p);
  return torch::nn::utils::clip_grad_norm_(params, max_norm);
  // CHECK-NOTES: :[[@LINE-1]]:10: warning: 'torch::nn::utils::clip_grad_norm_' is given a list that holds DTensors on different meshes: 'vit' on mesh [4] and 'lm' on mesh [2, 2]
  // CHECK-NOTES: :[[@LINE-85]]:3: note: 'vit' is put on mesh [4] here
  // CHECK-NOTES: :[[@LINE-85]]:3: note: 'lm' is put on mesh [2, 2] here
}
