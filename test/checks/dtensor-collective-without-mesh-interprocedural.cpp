// RUN: %check_meshguard %s dtensor-collective-without-mesh %t -- -- -I%stubs

// Across functions of the TU: what a function returns, and which parameter
// alone decides whether a collective inside has a mesh.

#include <meshguard/meshguard.h>

using meshguard::DeviceMesh;
using meshguard::Replicate;

void sync(const at::Tensor &grad) {
  meshguard::dist::all_reduce_({grad});
}

void caller(const DeviceMesh &mesh) {
  at::Tensor dt = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  sync(meshguard::to_local(dt));
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: call to 'sync' reaches collective 'c10d.allreduce_.default' with no DeviceMesh: argument 'meshguard::to_local(dt)' is a plain at::Tensor, so the runtime will throw 'found no DeviceMesh from dtensor args for c10d.allreduce_.default' [dtensor-collective-without-mesh]
  // CHECK-NOTES: :[[@LINE-2]]:8: note: 'meshguard::to_local(dt)' is a plain tensor: it comes from to_local() here
  // CHECK-NOTES: :[[@LINE-8]]:3: note: the collective is called here; its tensor arguments come only from that parameter
  sync(dt);
}

void wrapper(at::Tensor t) { sync(t); }

void callerOfWrapper() {
  wrapper(torch::zeros({4}));
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: call to 'wrapper' reaches collective 'c10d.allreduce_.default' with no DeviceMesh
  // CHECK-NOTES: :[[@LINE-2]]:11: note: 'torch::zeros({4})' is a plain tensor: it comes from torch::zeros() here
  // CHECK-NOTES: :[[@LINE-18]]:3: note: the collective is called here; its tensor arguments come only from that parameter
}

at::Tensor makeLocal(const at::Tensor &dt) { return meshguard::to_local(dt); }
at::Tensor makeDistributed(const DeviceMesh &mesh) {
  return meshguard::distribute_tensor(torch::ones({2}), mesh, {Replicate{}});
}

void returnSummaries(const DeviceMesh &mesh) {
  at::Tensor d = makeDistributed(mesh);
  at::Tensor l = makeLocal(d);
  meshguard::dist::broadcast_({l}, 0);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: collective 'c10d.broadcast_.default' has no DeviceMesh
  // CHECK-NOTES: :[[@LINE-10]]:53: note: 'l' is a plain tensor: it comes from to_local() here
  meshguard::dist::broadcast_({d}, 0);
}

// Negative twins: the parameter is not the only possible mesh carrier, the
// argument is unknown, recursion terminates.
void syncWith(const at::Tensor &a, const at::Tensor &b) {
  meshguard::dist::all_reduce_({a, b});
}
void twoArguments(const DeviceMesh &mesh) {
  at::Tensor dt = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  syncWith(torch::randn({4}), dt);
}

void unknownArgument(at::Tensor p) { sync(p); }

void recursive(at::Tensor t, int n) {
  if (n > 0)
    recursive(t, n - 1);
  meshguard::dist::broadcast_({t}, 0);
}
void callsRecursive() { recursive(torch::ones({2}), 3); }
// CHECK-NOTES: :[[@LINE-1]]:25: warning: call to 'recursive' reaches collective 'c10d.broadcast_.default' with no DeviceMesh
// CHECK-NOTES: :[[@LINE-2]]:35: note: 'torch::ones({2})' is a plain tensor: it comes from torch::ones() here
// CHECK-NOTES: :[[@LINE-5]]:3: note: the collective is called here; its tensor arguments come only from that parameter

// A helper that tests is_dtensor before the collective is not a sink: with a
// plain argument the collective is never reached.
void syncIfDistributed(const at::Tensor &g) {
  if (!meshguard::is_dtensor(g))
    return;
  meshguard::dist::all_reduce_({g});
}
void syncEither(const at::Tensor &g, const meshguard::DeviceMesh &mesh) {
  if (meshguard::is_dtensor(g))
    meshguard::dist::all_reduce_({g});
  else
    meshguard::guarded::all_reduce_({g}, mesh);
}
void syncUnlessDistributed(const at::Tensor &g) {
  if (meshguard::is_dtensor(g))
    return;
  meshguard::dist::all_reduce_({g});
}

void guardedHelpers(const meshguard::DeviceMesh &mesh) {
  at::Tensor g = torch::randn({2});
  syncIfDistributed(g);
  syncEither(g, mesh);
  syncUnlessDistributed(g);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: call to 'syncUnlessDistributed' reaches collective 'c10d.allreduce_.default' with no DeviceMesh
  // CHECK-NOTES: :[[@LINE-5]]:18: note: 'g' is a plain tensor: it comes from torch::randn() here
  // CHECK-NOTES: :[[@LINE-10]]:3: note: the collective is called here; its tensor arguments come only from that parameter
}
