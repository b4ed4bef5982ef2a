// RUN: %check_meshguard %s dtensor-collective-without-mesh %t -- -- -I%stubs
// RUN: %meshguard_tidy %s --checks=-*,dtensor-collective-without-mesh \
// RUN:   -config="{CheckOptions: {dtensor-collective-without-mesh.PrintStats: true}}" \
// RUN:   -- -std=c++17 -I%stubs 2>&1 | FileCheck %s -check-prefix=STATS
// RUN: %meshguard_tidy %s --checks=-*,dtensor-collective-without-mesh \
// RUN:   -config="{CheckOptions: {dtensor-collective-without-mesh.PrintStats: true, dtensor-collective-without-mesh.MaxFunctionElements: 60}}" \
// RUN:   -- -std=c++17 -I%stubs 2>&1 | FileCheck %s -check-prefix=SMALL

// A function's lambdas are read from one analysis of the function, however
// many there are (each lambda used to analyse its enclosing function again,
// and each by-reference capture walked the body once per use: cubic).
// (Six lambdas call a collective; the last function's lambda captures `t`
// through an alias, so nothing is read for it. The five lambdas called
// by name are asked again when their calls are summarised: 11 asks, still
// two analyses.)
// STATS: 9 function(s) analysed, 0 skipped; {{.*}}; 2 enclosing function(s) analysed for the captures of 11 lambda(s);
// An enclosing function over MaxFunctionElements is neither analysed nor
// walked for writes; its lambdas (small enough themselves) get no facts.
// SMALL: 3 because the function is larger than MaxFunctionElements; {{.*}}; 0 enclosing function(s) analysed for the captures of 6 lambda(s);

#include <meshguard/meshguard.h>
#include <torch/torch.h>

using meshguard::DeviceMesh;
using meshguard::Replicate;

void manyLambdas() {
  at::Tensor t = torch::randn({4});
  auto a = [&] { meshguard::dist::broadcast_({t}, 0); };
  // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: collective 'c10d.broadcast_.default' has no DeviceMesh{{.*}} [dtensor-collective-without-mesh]
  auto b = [&t] { meshguard::dist::broadcast_({t}, 0); };
  // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: collective 'c10d.broadcast_.default' has no DeviceMesh{{.*}} [dtensor-collective-without-mesh]
  auto c = [t] { meshguard::dist::broadcast_({t}, 0); };
  // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: collective 'c10d.broadcast_.default' has no DeviceMesh{{.*}} [dtensor-collective-without-mesh]
  auto d = [&] { meshguard::dist::all_reduce_({t}); };
  // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: collective 'c10d.allreduce_.default' has no DeviceMesh{{.*}} [dtensor-collective-without-mesh]
  a();
  b();
  c();
  d();
}

// A copy's writes are the copy's: `t` keeps its value for the others.
void mutableCopyWrites(const DeviceMesh &mesh) {
  at::Tensor t = torch::randn({4});
  auto shardCopy = [t, &mesh]() mutable {
    t = meshguard::distribute_tensor(t, mesh, {Replicate{}});
  };
  auto sync = [&] { meshguard::dist::broadcast_({t}, 0); };
  // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: collective 'c10d.broadcast_.default' has no DeviceMesh{{.*}} [dtensor-collective-without-mesh]
  shardCopy();
  sync();
}

// An init-capture by reference is an alias: what the lambda does through it
// may change `t` before `sync` runs (no warning).
void writtenThroughInitCapture(const DeviceMesh &mesh) {
  at::Tensor t = torch::randn({4});
  auto shard = [&r = t, &mesh] {
    r = meshguard::distribute_tensor(r, mesh, {Replicate{}});
  };
  auto sync = [&] { meshguard::dist::broadcast_({t}, 0); };
  shard();
  sync();
}
