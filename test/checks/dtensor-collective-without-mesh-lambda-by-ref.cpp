// RUN: %check_meshguard %s dtensor-collective-without-mesh %t -- -- -I%stubs

// A tensor captured by reference carries what it was where the lambda was
// made when nothing can change it before the lambda runs: no lambda writes
// it, and the enclosing function writes it only where control cannot come
// after the lambda's creation (before it, not in a loop around it). Taking
// its address or passing it by non-const reference counts as a write
// anywhere.
#include <meshguard/meshguard.h>
#include <torch/torch.h>
#include <functional>

using meshguard::DeviceMesh;
using meshguard::Replicate;

void neverWritten() {
  at::Tensor t = torch::randn({4});
  auto sync = [&] { meshguard::dist::broadcast_({t}, 0); };
  // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: collective 'c10d.broadcast_.default' has no DeviceMesh{{.*}} [dtensor-collective-without-mesh]
  sync();
}

void writtenBefore(bool c) {
  at::Tensor t;
  t = torch::zeros({4});
  if (c)
    t = torch::ones({4});
  auto sync = [&t] { meshguard::dist::all_reduce_({t}); };
  // CHECK-MESSAGES: :[[@LINE-1]]:22: warning: collective 'c10d.allreduce_.default' has no DeviceMesh{{.*}} [dtensor-collective-without-mesh]
  sync();
}

void readByOtherLambdas() {
  at::Tensor t = torch::randn({4});
  auto print = [&] { return t.numel(); };
  auto sync = [&] { meshguard::dist::broadcast_({t}, 0); };
  // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: collective 'c10d.broadcast_.default' has no DeviceMesh{{.*}} [dtensor-collective-without-mesh]
  print();
  sync();
}

// Negative twins: a DTensor; writes the lambda's creation can reach; writes
// by lambdas; writes through aliases.
void dtensorNeverWritten(const DeviceMesh &mesh) {
  at::Tensor t = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  auto sync = [&] { meshguard::dist::broadcast_({t}, 0); };
  sync();
}

void writtenAfter(const DeviceMesh &mesh) {
  at::Tensor t = torch::randn({4});
  auto sync = [&] { meshguard::dist::broadcast_({t}, 0); };
  t = meshguard::distribute_tensor(t, mesh, {Replicate{}});
  sync();
}

// Plain where each lambda is made, a DTensor when they run: the write comes
// first in the loop's text but after the creation in the previous iteration.
void writtenBeforeInALoop(const DeviceMesh &mesh, int n) {
  at::Tensor t;
  std::vector<std::function<void()>> syncs;
  for (int i = 0; i < n; ++i) {
    if (i == n - 1) {
      t = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
      break;
    }
    t = torch::zeros({4});
    syncs.push_back([&] { meshguard::dist::broadcast_({t}, 0); });
  }
  for (auto &sync : syncs)
    sync();
}

void writtenByAnotherLambda(const DeviceMesh &mesh) {
  at::Tensor t = torch::randn({4});
  auto shard = [&] { t = meshguard::distribute_tensor(t, mesh, {Replicate{}}); };
  auto sync = [&] { meshguard::dist::broadcast_({t}, 0); };
  shard();
  sync();
}

void writtenByItself(const DeviceMesh &mesh) {
  at::Tensor t = torch::randn({4});
  auto sync = [&] {
    meshguard::dist::broadcast_({t}, 0);
    t = meshguard::distribute_tensor(t, mesh, {Replicate{}});
  };
  sync();
}

void shard(at::Tensor &t, const DeviceMesh &mesh);
void passedByReferenceAfter(const DeviceMesh &mesh) {
  at::Tensor t = torch::randn({4});
  auto sync = [&] { meshguard::dist::broadcast_({t}, 0); };
  shard(t, mesh);
  sync();
}

void writtenThroughAlias(const DeviceMesh &mesh) {
  at::Tensor t = torch::randn({4});
  at::Tensor &alias = t;
  auto sync = [&] { meshguard::dist::broadcast_({t}, 0); };
  alias = meshguard::distribute_tensor(t, mesh, {Replicate{}});
  sync();
}

void addressTakenBefore(const DeviceMesh &mesh) {
  at::Tensor t = torch::randn({4});
  at::Tensor *p = &t;
  auto sync = [&] { meshguard::dist::broadcast_({t}, 0); };
  *p = meshguard::distribute_tensor(t, mesh, {Replicate{}});
  sync();
}

struct Slot {
  explicit Slot(at::Tensor &t);
  void fill(const DeviceMesh &mesh);
};
void referenceKeptBefore(const DeviceMesh &mesh) {
  at::Tensor t = torch::randn({4});
  Slot slot(t);
  auto sync = [&] { meshguard::dist::broadcast_({t}, 0); };
  slot.fill(mesh);
  sync();
}
