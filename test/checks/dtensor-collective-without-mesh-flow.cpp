// RUN: %check_meshguard %s dtensor-collective-without-mesh %t -- -- -I%stubs

// Copies, moves, references, auto, ops, branches and loops: the dataflow
// framework carries provenance; each pattern has a silent twin.

#include <meshguard/meshguard.h>

using meshguard::DeviceMesh;
using meshguard::Replicate;

void copiesAndMoves() {
  auto a = torch::randn({2});
  auto b = a;
  const at::Tensor &c = b;
  at::Tensor d = std::move(b);
  meshguard::dist::broadcast_({c, d}, 0);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: collective 'c10d.broadcast_.default' has no DeviceMesh
}

void copiesOfDTensor(const DeviceMesh &mesh) {
  auto a = meshguard::distribute_tensor(torch::randn({2}), mesh, {Replicate{}});
  auto b = a;
  const at::Tensor &c = b;
  at::Tensor d = std::move(b);
  meshguard::dist::broadcast_({c}, 0);
  meshguard::dist::broadcast_({d}, 0);
}

void opsOnPlain() {
  at::Tensor a = torch::randn({2});
  at::Tensor b = (a + a).detach() * 2;
  meshguard::dist::all_reduce_({b.clone()});
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: collective 'c10d.allreduce_.default' has no DeviceMesh
}

void opsOnDTensor(const DeviceMesh &mesh) {
  at::Tensor a = meshguard::distribute_tensor(torch::randn({2}), mesh, {Replicate{}});
  at::Tensor b = (a + a).detach() * 2;
  meshguard::dist::all_reduce_({b.clone()});
}

void bothBranchesPlain(bool c) {
  at::Tensor t;
  if (c)
    t = torch::randn({2});
  else
    t = meshguard::to_local(torch::ones({2}));
  meshguard::dist::broadcast_({t}, 0);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: collective 'c10d.broadcast_.default' has no DeviceMesh
}

void oneBranchDTensor(bool c, const DeviceMesh &mesh) {
  at::Tensor t = c ? torch::randn({2})
                   : meshguard::distribute_tensor(torch::ones({2}), mesh, {});
  meshguard::dist::broadcast_({t}, 0);
}

void ternaryBothPlain(bool c) {
  at::Tensor t = c ? torch::randn({2}) : torch::zeros({2});
  meshguard::dist::broadcast_({t}, 0);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: collective 'c10d.broadcast_.default' has no DeviceMesh
}

void loopKeepsPlain(int n) {
  at::Tensor t = torch::randn({2});
  for (int i = 0; i < n; ++i)
    t = t * 2;
  meshguard::dist::broadcast_({t}, 0);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: collective 'c10d.broadcast_.default' has no DeviceMesh
}

void loopMayDistribute(int n, const DeviceMesh &mesh) {
  at::Tensor t = torch::randn({2});
  for (int i = 0; i < n; ++i)
    t = meshguard::distribute_tensor(t, mesh, {Replicate{}});
  meshguard::dist::broadcast_({t}, 0);
}

void passedByReference(at::Tensor &);
void unknownMutation() {
  at::Tensor t = torch::randn({2});
  passedByReference(t);
  meshguard::dist::broadcast_({t}, 0);
}

void passedByConstReference(const at::Tensor &);
void constUse() {
  at::Tensor t = torch::randn({2});
  passedByConstReference(t);
  meshguard::dist::broadcast_({t}, 0);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: collective 'c10d.broadcast_.default' has no DeviceMesh
}

void lambdaBody() {
  auto f = [] {
    at::Tensor t = torch::randn({2});
    meshguard::dist::broadcast_({t}, 0);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: collective 'c10d.broadcast_.default' has no DeviceMesh
  };
  f();
}

void lambdaCapturedUnknown(at::Tensor t) {
  auto f = [t] { meshguard::dist::broadcast_({t}, 0); };
  f();
}

void inPlaceKeepsPlain() {
  at::Tensor t = torch::randn({2});
  t.add_(t);
  t.mul_(2);
  meshguard::dist::broadcast_({t}, 0);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: collective 'c10d.broadcast_.default' has no DeviceMesh
}

void inPlaceKeepsDTensor(const DeviceMesh &mesh) {
  at::Tensor t = meshguard::distribute_tensor(torch::randn({2}), mesh, {Replicate{}});
  t.add_(t);
  meshguard::dist::broadcast_({t}, 0);
}

// Tests of is_dtensor() are followed: the collective is not reached with a
// plain tensor.
void testedBeforeCollective(bool c) {
  at::Tensor g = torch::randn({2});
  if (c)
    g = g * 2;
  if (meshguard::is_dtensor(g))
    meshguard::dist::all_reduce_({g});
  if (!meshguard::is_dtensor(g))
    meshguard::dist::all_reduce_({g});
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: collective 'c10d.allreduce_.default' has no DeviceMesh
}
