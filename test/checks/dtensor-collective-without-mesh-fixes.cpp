// RUN: %check_meshguard %s dtensor-collective-without-mesh %t -- -- -I%stubs

// The fix-it: meshguard::guarded::<op>(<tensors>, <mesh>, <rest>) with a
// DeviceMesh found in scope; no fix-it (but a note) without one, and none
// inside macros.

#include <meshguard/meshguard.h>

using meshguard::DeviceMesh;
using meshguard::Replicate;
namespace dist = meshguard::dist;

void meshLocal() {
  DeviceMesh mesh("cpu", {0, 1});
  at::Tensor t = torch::randn({4});
  meshguard::dist::broadcast_({t}, /*src=*/0);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: collective 'c10d.broadcast_.default' has no DeviceMesh
  // CHECK-FIXES: meshguard::guarded::broadcast_({t}, mesh, /*src=*/0);
}

void meshParameterAndAlias(const DeviceMesh &world) {
  at::Tensor t = torch::randn({4});
  dist::all_reduce_({t}, meshguard::ReduceOp::MAX, /*mesh_dim=*/0);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: collective 'c10d.allreduce_.default' has no DeviceMesh
  // CHECK-FIXES: meshguard::guarded::all_reduce_({t}, world, meshguard::ReduceOp::MAX, /*mesh_dim=*/0);
}

void nearestMeshWins(const DeviceMesh &outer) {
  DeviceMesh inner("cpu", {0});
  at::Tensor t = torch::zeros({4});
  meshguard::dist::broadcast_({t}, 0);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: collective 'c10d.broadcast_.default' has no DeviceMesh
  // CHECK-FIXES: meshguard::guarded::broadcast_({t}, inner, 0);
}

void meshOutOfScope() {
  {
    DeviceMesh gone("cpu", {0});
  }
  at::Tensor t = torch::zeros({4});
  meshguard::dist::broadcast_({t}, 0);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: collective 'c10d.broadcast_.default' has no DeviceMesh
  // CHECK-FIXES: meshguard::dist::broadcast_({t}, 0);
}

void meshPointer(const DeviceMesh *mesh) {
  at::Tensor t = torch::zeros({4});
  meshguard::dist::broadcast_({t}, 0);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: collective 'c10d.broadcast_.default' has no DeviceMesh
  // CHECK-FIXES: meshguard::guarded::broadcast_({t}, *mesh, 0);
}


struct Trainer {
  DeviceMesh mesh_;
  void step() {
    at::Tensor grad = torch::ones({4});
    meshguard::dist::all_reduce_({grad});
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: collective 'c10d.allreduce_.default' has no DeviceMesh
    // CHECK-FIXES: meshguard::guarded::all_reduce_({grad}, mesh_);
  }
};

void gatherWithMeshOf(at::Tensor dt0) {
  // The mesh of a DTensor in scope: *meshguard::mesh_of(dt).
  at::Tensor dt = meshguard::from_local(torch::randn({2}),
                                        *meshguard::mesh_of(dt0), {Replicate{}});
  at::Tensor local = meshguard::to_local(dt);
  auto parts = meshguard::dist::all_gather({local});
  // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: collective 'c10d.allgather_.default' has no DeviceMesh
  // CHECK-FIXES: auto parts = meshguard::guarded::all_gather({local}, *meshguard::mesh_of(dt));
}

void namedVector(const DeviceMesh &mesh) {
  std::vector<at::Tensor> ts = {torch::zeros({2}), torch::ones({2})};
  meshguard::dist::broadcast_(ts, 0);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: collective 'c10d.broadcast_.default' has no DeviceMesh
  // CHECK-FIXES: meshguard::guarded::broadcast_(ts, mesh, 0);
}

#define SYNC(t) meshguard::dist::broadcast_({t}, 0)
void inMacro(const DeviceMesh &mesh) {
  at::Tensor t = torch::zeros({4});
  SYNC(t);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: collective 'c10d.broadcast_.default' has no DeviceMesh
  // CHECK-FIXES: SYNC(t);
}

// Negative twin: already guarded, or a DTensor argument.
void alreadyGuarded(const DeviceMesh &mesh) {
  at::Tensor t = torch::zeros({4});
  meshguard::guarded::broadcast_({t}, mesh, 0);
  meshguard::CollectiveGuard guard(mesh);
  guard.broadcast_({t}, 0);
}

// A name that another declaration hides would make the fix-it name it: no
// fix-it (the note says what to pass), or `this->` for a field.
void meshHidden(const DeviceMesh &mesh) {
  {
    int mesh = 3;
    (void)mesh;
    at::Tensor t = torch::randn({4});
    meshguard::dist::broadcast_({t}, 0);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: collective 'c10d.broadcast_.default' has no DeviceMesh
    // CHECK-FIXES: {{^}}    meshguard::dist::broadcast_({t}, 0);
  }
}

struct Syncer {
  DeviceMesh mesh;
  void log(const std::string &mesh) {
    at::Tensor t = torch::randn({4});
    meshguard::dist::broadcast_({t}, 0);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: collective 'c10d.broadcast_.default' has no DeviceMesh
    // CHECK-FIXES: {{^}}    meshguard::guarded::broadcast_({t}, this->mesh, 0);
  }
};
