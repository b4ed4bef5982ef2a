// RUN: %check_meshguard %s dtensor-collective-without-mesh %t -- -- -I%stubs

// A lambda's captured tensors carry what they were where the lambda was
// made: by copy always; by reference when nothing writes the variable after
// the lambda is made (more in ...-lambda-by-ref.cpp).
#include <meshguard/meshguard.h>
#include <torch/torch.h>
#include <functional>

using meshguard::DeviceMesh;

void byCopy(const DeviceMesh &mesh) {
  at::Tensor t = torch::randn({4});
  auto sync = [=] { meshguard::dist::broadcast_({t}, 0); };
  // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: collective 'c10d.broadcast_.default' has no DeviceMesh{{.*}} [dtensor-collective-without-mesh]
  sync();
}

void byRefNeverChanged(const DeviceMesh &mesh) {
  at::Tensor t = torch::randn({4});
  auto sync = [&] { meshguard::dist::broadcast_({t}, 0); };
  // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: collective 'c10d.broadcast_.default' has no DeviceMesh{{.*}} [dtensor-collective-without-mesh]
  sync();
}

void byRefChangedLater(const DeviceMesh &mesh) {
  at::Tensor t = torch::randn({4});
  auto sync = [&t] { meshguard::dist::broadcast_({t}, 0); };
  t = meshguard::distribute_tensor(t, mesh, {meshguard::Replicate{}});
  sync();
}

void dtensorCaptured(const DeviceMesh &mesh) {
  at::Tensor d = meshguard::distribute_tensor(torch::randn({4}), mesh, {meshguard::Replicate{}});
  auto sync = [d] { meshguard::dist::broadcast_({d}, 0); };
  sync();
}

void nested(const DeviceMesh &mesh) {
  at::Tensor t = torch::zeros({4});
  auto outer = [=] {
    auto inner = [=] { meshguard::dist::all_reduce_({t}); };
    // CHECK-MESSAGES: :[[@LINE-1]]:24: warning: collective 'c10d.allreduce_.default' has no DeviceMesh{{.*}} [dtensor-collective-without-mesh]
    inner();
  };
  outer();
}

void param(at::Tensor p) {
  auto sync = [=] { meshguard::dist::broadcast_({p}, 0); };
  sync();
}
