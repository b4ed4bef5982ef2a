// RUN: %check_meshguard -check-suffix=DEFAULT %s dtensor-collective-without-mesh %t -- -- -I%stubs
// RUN: %check_meshguard -check-suffix=STRICT %s dtensor-collective-without-mesh %t -- \
// RUN:   -config="{CheckOptions: {dtensor-collective-without-mesh.StrictMode: true}}" -- -I%stubs

// StrictMode: a collective whose arguments are all plain on *some* path gets a
// separate, quieter diagnostic; unknown values still never warn.

#include <meshguard/meshguard.h>

using meshguard::DeviceMesh;
using meshguard::Replicate;

void surely() {
  at::Tensor t = torch::zeros({4});
  meshguard::dist::broadcast_({t}, 0);
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-1]]:3: warning: collective 'c10d.broadcast_.default' has no DeviceMesh
  // CHECK-MESSAGES-STRICT: :[[@LINE-2]]:3: warning: collective 'c10d.broadcast_.default' has no DeviceMesh
}

void somePath(bool c, const DeviceMesh &mesh) {
  at::Tensor t = torch::zeros({4});
  if (c)
    t = meshguard::distribute_tensor(t, mesh, {Replicate{}});
  meshguard::dist::broadcast_({t}, 0);
  // CHECK-MESSAGES-STRICT: :[[@LINE-1]]:3: warning: collective 'c10d.broadcast_.default' may have no DeviceMesh: on some path every tensor argument is a plain at::Tensor [dtensor-collective-without-mesh]
}

void correlatedPaths(bool c, const DeviceMesh &mesh) {
  // On every path one of the two is a DTensor: no diagnostic even in strict mode.
  at::Tensor a = torch::zeros({4});
  at::Tensor b = torch::zeros({4});
  if (c)
    a = meshguard::distribute_tensor(a, mesh, {Replicate{}});
  else
    b = meshguard::distribute_tensor(b, mesh, {Replicate{}});
  meshguard::dist::all_reduce_({a, b});
}

void unknownOnSomePath(bool c, at::Tensor p) {
  at::Tensor t = c ? p : torch::zeros({4});
  meshguard::dist::broadcast_({t}, 0);
}
