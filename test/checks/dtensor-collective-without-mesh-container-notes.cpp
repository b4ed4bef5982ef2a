// RUN: %check_meshguard %s dtensor-collective-without-mesh %t -- -- -I%stubs

// A finding on a vector walks back to what made its elements plain: the
// module whose parameters() filled it (never distributed: the one fix is
// distribute_module, not a guarded collective too), or the calls pushed into
// it (to_local()).
#include <meshguard/meshguard.h>
#include <torch/torch.h>

using meshguard::DeviceMesh;

void copiedFromParameters() {
  DeviceMesh mesh("cpu", {0, 1});
  torch::nn::Linear head(8, 2);
  // CHECK-FIXES: torch::nn::Linear head(8, 2);
  // CHECK-FIXES-NEXT: meshguard::distribute_module(*head, mesh);
  std::vector<at::Tensor> ps = head->parameters();
  meshguard::dist::all_reduce_(ps);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: collective 'c10d.allreduce_.default' has no DeviceMesh: every tensor argument is a plain at::Tensor
  // CHECK-NOTES: :[[@LINE-6]]:21: note: 'ps' holds only plain tensors: module 'head' is created here and never passed to meshguard::distribute_module
  // CHECK-FIXES: meshguard::dist::all_reduce_(ps);
}

void pushedInALoopOverParameters() {
  DeviceMesh mesh("cpu", {0, 1});
  torch::nn::Linear head(8, 2);
  // CHECK-FIXES: torch::nn::Linear head(8, 2);
  // CHECK-FIXES-NEXT: meshguard::distribute_module(*head, mesh);
  std::vector<at::Tensor> grads;
  for (auto &p : head->parameters())
    grads.push_back(p.grad());
  meshguard::dist::all_reduce_(grads);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: collective 'c10d.allreduce_.default' has no DeviceMesh
  // CHECK-NOTES: :[[@LINE-8]]:21: note: 'grads' holds only plain tensors: module 'head' is created here and never passed to meshguard::distribute_module
  // CHECK-FIXES: meshguard::dist::all_reduce_(grads);
}

void pushedToLocal() {
  DeviceMesh mesh("cpu", {0, 1});
  at::Tensor d = meshguard::distribute_tensor(torch::randn({2}), mesh, {});
  std::vector<at::Tensor> grads;
  grads.push_back(meshguard::to_local(d));
  grads.emplace_back(torch::zeros({2}));
  meshguard::dist::all_reduce_(grads);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: collective 'c10d.allreduce_.default' has no DeviceMesh
  // CHECK-NOTES: :[[@LINE-4]]:19: note: 'grads' holds only plain tensors: an element comes from to_local() here
  // CHECK-NOTES: :[[@LINE-4]]:22: note: 'grads' holds only plain tensors: an element comes from torch::zeros() here
  // CHECK-FIXES: meshguard::guarded::all_reduce_(grads, mesh);
}

// Negative twins: the module distributed, a DTensor pushed.

void distributedParameters() {
  DeviceMesh mesh("cpu", {0, 1});
  torch::nn::Linear head(8, 2);
  meshguard::distribute_module(*head, mesh);
  std::vector<at::Tensor> ps = head->parameters();
  meshguard::dist::all_reduce_(ps);
  std::vector<at::Tensor> grads;
  for (auto &p : head->parameters())
    grads.push_back(p);
  meshguard::dist::all_reduce_(grads);
}

void pushedADTensor() {
  DeviceMesh mesh("cpu", {0, 1});
  at::Tensor d = meshguard::distribute_tensor(torch::randn({2}), mesh, {});
  std::vector<at::Tensor> grads;
  grads.push_back(meshguard::to_local(d));
  grads.push_back(d);
  meshguard::dist::all_reduce_(grads);
}
