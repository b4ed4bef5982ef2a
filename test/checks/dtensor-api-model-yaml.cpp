// RUN: %check_meshguard %s dtensor-collective-without-mesh,dtensor-process-group-misuse %t -- \
// RUN:   -config="{CheckOptions: {dtensor-collective-without-mesh.ModelFile: '%S/Inputs/mylib-model.yaml', dtensor-process-group-misuse.ModelFile: '%S/Inputs/mylib-model.yaml'}}" \
// RUN:   -- -I%stubs
// The fixed output compiles: a fix-it only passes what the called function
// takes (a mylib::Mesh to mylib::sync_on, never to meshguard::guarded::*).
// RUN: %cxx -fsyntax-only -std=c++17 -I%stubs %t.cpp

// A YAML API model extends the built-in one: a user's own wrapper library.

#include <meshguard/meshguard.h>

namespace mylib {
struct Mesh {};
at::Tensor shard(const at::Tensor &t, const Mesh &m);
at::Tensor local_copy(const at::Tensor &t);
void sync(int tag, std::vector<at::Tensor> tensors);
void sync_on(int tag, std::vector<at::Tensor> tensors, const Mesh &m);
void raw_send(const at::Tensor &t);
} // namespace mylib

void userPlain(const mylib::Mesh &m) {
  at::Tensor d = mylib::shard(torch::randn({2}), m);
  at::Tensor l = mylib::local_copy(d);
  mylib::sync(7, {l});
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: collective 'c10d.broadcast_.default' has no DeviceMesh
  // CHECK-FIXES: mylib::sync_on(7, {l}, m);
}

void userDTensor(const mylib::Mesh &m) {
  at::Tensor d = mylib::shard(torch::randn({2}), m);
  mylib::sync(7, {d});
  // And the built-in model still applies.
  at::Tensor e = meshguard::to_local(meshguard::distribute_tensor(d, meshguard::DeviceMesh("cpu", {0}), {}));
  meshguard::dist::broadcast_({e}, 0);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: collective 'c10d.broadcast_.default' has no DeviceMesh
  // CHECK-FIXES: meshguard::guarded::broadcast_({e}, *meshguard::mesh_of(d), 0);
}

// A DeviceMesh and a mylib::Mesh in scope: each rewrite takes the mesh its
// guarded form accepts, not the nearest mesh of any listed type.
void bothMeshes(const meshguard::DeviceMesh &dm, const mylib::Mesh &m) {
  at::Tensor l = mylib::local_copy(mylib::shard(torch::randn({2}), m));
  meshguard::dist::broadcast_({l}, 0);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: collective 'c10d.broadcast_.default' has no DeviceMesh
  // CHECK-FIXES: meshguard::guarded::broadcast_({l}, dm, 0);
  mylib::sync(7, {l});
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: collective 'c10d.broadcast_.default' has no DeviceMesh
  // CHECK-FIXES: mylib::sync_on(7, {l}, m);
}

void userRawSend(const mylib::Mesh &m) {
  mylib::raw_send(mylib::shard(torch::randn({2}), m));
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: raw process-group collective 'c10d.send.default' is given a DTensor
  mylib::raw_send(torch::randn({2}));
}
