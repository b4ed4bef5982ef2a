// RUN: %check_meshguard %s dtensor-collective-without-mesh %t -- -- -I%stubs
// RUN: %cxx -fsyntax-only -std=c++17 -I%stubs %t.cpp

// Fix-its inside lambdas: a DeviceMesh of the enclosing function is usable in
// the lambda's body when the lambda captures it, by reference or by copy,
// explicitly or under a default capture ([&], [=]: naming it captures it).
// One that an explicit capture list leaves out is not (the fix would not
// compile). The fixed file must compile.

#include <meshguard/meshguard.h>

using meshguard::DeviceMesh;

void defaultByReference() {
  DeviceMesh mesh("cpu", {0, 1});
  auto sync = [&]() {
    at::Tensor t = torch::zeros({4});
    meshguard::dist::broadcast_({t}, 0);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: collective 'c10d.broadcast_.default' has no DeviceMesh
    // CHECK-FIXES: {{^}}    meshguard::guarded::broadcast_({t}, mesh, 0);
  };
  sync();
}

void defaultByCopy(const DeviceMesh &world) {
  auto sync = [=] {
    at::Tensor t = torch::zeros({4});
    meshguard::dist::all_reduce_({t});
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: collective 'c10d.allreduce_.default' has no DeviceMesh
    // CHECK-FIXES: {{^}}    meshguard::guarded::all_reduce_({t}, world);
  };
  sync();
}

void explicitByReference(const DeviceMesh &world) {
  auto sync = [&world] {
    at::Tensor t = torch::zeros({4});
    meshguard::dist::broadcast_({t}, 0);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: collective 'c10d.broadcast_.default' has no DeviceMesh
    // CHECK-FIXES: {{^}}    meshguard::guarded::broadcast_({t}, world, 0);
  };
  sync();
}

void explicitByCopy() {
  DeviceMesh mesh("cpu", {0, 1});
  auto sync = [mesh] {
    at::Tensor t = torch::zeros({4});
    meshguard::dist::broadcast_({t}, 0);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: collective 'c10d.broadcast_.default' has no DeviceMesh
    // CHECK-FIXES: {{^}}    meshguard::guarded::broadcast_({t}, mesh, 0);
  };
  sync();
}

void initCapture() {
  DeviceMesh mesh("cpu", {0, 1});
  auto sync = [m = mesh]() {
    at::Tensor t = torch::zeros({4});
    meshguard::dist::broadcast_({t}, 0);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: collective 'c10d.broadcast_.default' has no DeviceMesh
    // CHECK-FIXES: {{^}}    meshguard::guarded::broadcast_({t}, m, 0);
  };
  sync();
}

// A lambda inside a lambda, both capturing by default.
void nested() {
  DeviceMesh mesh("cpu", {0, 1});
  auto outer = [&] {
    auto inner = [&]() {
      at::Tensor t = torch::zeros({4});
      meshguard::dist::broadcast_({t}, 0);
      // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: collective 'c10d.broadcast_.default' has no DeviceMesh
      // CHECK-FIXES: {{^}}      meshguard::guarded::broadcast_({t}, mesh, 0);
    };
    inner();
  };
  outer();
}

// A DeviceMesh field, through a captured `this`.
struct Trainer {
  DeviceMesh mesh;
  void step() {
    auto sync = [this]() {
      at::Tensor t = torch::zeros({4});
      meshguard::dist::broadcast_({t}, 0);
      // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: collective 'c10d.broadcast_.default' has no DeviceMesh
      // CHECK-FIXES: {{^}}      meshguard::guarded::broadcast_({t}, mesh, 0);
    };
    sync();
  }
};

// Negative twins: the mesh is not captured by the explicit capture list (or
// there is no capture), so it cannot be named in the body: no fix-it.
void notCaptured() {
  DeviceMesh mesh("cpu", {0, 1});
  int src = 0;
  auto sync = [src] {
    at::Tensor t = torch::zeros({4});
    meshguard::dist::broadcast_({t}, src);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: collective 'c10d.broadcast_.default' has no DeviceMesh
    // CHECK-FIXES: {{^}}    meshguard::dist::broadcast_({t}, src);
  };
  sync();
}

void noCapture() {
  DeviceMesh mesh("cpu", {0, 1});
  auto sync = []() {
    at::Tensor t = torch::zeros({4});
    meshguard::dist::broadcast_({t}, 0);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: collective 'c10d.broadcast_.default' has no DeviceMesh
    // CHECK-FIXES: {{^}}    meshguard::dist::broadcast_({t}, 0);
  };
  sync();
}

struct NoThis {
  DeviceMesh mesh;
  void step() {
    auto sync = []() {
      at::Tensor t = torch::zeros({4});
      meshguard::dist::broadcast_({t}, 0);
      // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: collective 'c10d.broadcast_.default' has no DeviceMesh
      // CHECK-FIXES: {{^}}      meshguard::dist::broadcast_({t}, 0);
    };
    sync();
  }
};
