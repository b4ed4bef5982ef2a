// RUN: %check_meshguard %s dtensor-collective-without-mesh %t -- -- -I%stubs

// A range-for variable bound by non-const reference: the container keeps its
// facts unless the body may rebind the variable (assign it, hand it to a
// non-const reference, take a non-const reference or pointer to it, capture
// it by reference). Tensor methods, in-place ones included, keep provenance.
#include <meshguard/meshguard.h>
#include <torch/torch.h>

void inPlaceKeeps() {
  std::vector<at::Tensor> grads{torch::ones({1})};
  for (auto &g : grads)
    g.mul_(torch::ones({1}));
  meshguard::dist::all_reduce_(grads);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: collective 'c10d.allreduce_.default' has no DeviceMesh{{.*}} [dtensor-collective-without-mesh]
}

void readOnlyKeeps() {
  std::vector<at::Tensor> grads{torch::ones({1})}, copies;
  for (auto &g : grads)
    copies.push_back(g.contiguous());
  meshguard::dist::all_reduce_(grads);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: collective 'c10d.allreduce_.default' has no DeviceMesh{{.*}} [dtensor-collective-without-mesh]
}

// Negative twins: each body may rebind the variable, so the container becomes
// unknown (no warning).
void assigned(std::vector<at::Tensor> other) {
  std::vector<at::Tensor> grads{torch::ones({1})};
  for (auto &g : grads)
    g = other[0];
  meshguard::dist::all_reduce_(grads);
}

void swapped(std::vector<at::Tensor> other) {
  std::vector<at::Tensor> grads{torch::ones({1})};
  for (auto &g : grads)
    std::swap(g, other[0]);
  meshguard::dist::all_reduce_(grads);
}

void throughReference(std::vector<at::Tensor> other) {
  std::vector<at::Tensor> grads{torch::ones({1})};
  for (auto &g : grads) {
    at::Tensor &alias = g;
    alias = other[0];
  }
  meshguard::dist::all_reduce_(grads);
}

void throughPointer(std::vector<at::Tensor> other) {
  std::vector<at::Tensor> grads{torch::ones({1})};
  for (auto &g : grads) {
    at::Tensor *ptr = &g;
    *ptr = other[0];
  }
  meshguard::dist::all_reduce_(grads);
}

void capturedByReference(std::vector<at::Tensor> other) {
  std::vector<at::Tensor> grads{torch::ones({1})};
  for (auto &g : grads)
    [&g, &other] { g = other[0]; }();
  meshguard::dist::all_reduce_(grads);
}
