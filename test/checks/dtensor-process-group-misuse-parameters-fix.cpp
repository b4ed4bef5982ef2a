// RUN: %check_meshguard %s dtensor-process-group-misuse %t -- -- -I%stubs
// RUN: %cxx -fsyntax-only -std=c++17 -I%stubs %t.cpp

// DDP's parameter broadcast after distribute_module: the vector comes from
// parameters(), so no to_local() can be written into it. The fix-it calls
// the mesh-aware collective on the same vector (the parameters stay
// distributed; BroadcastOptions' default root is rank 0).
#include <meshguard/meshguard.h>
#include <torch/csrc/distributed/c10d/Ops.hpp>
#include <torch/torch.h>

using meshguard::DeviceMesh;

void broadcastParameters(c10d::ProcessGroup &pg, const DeviceMesh &mesh) {
  torch::nn::Linear model(8, 2);
  meshguard::distribute_module(*model, mesh);
  std::vector<at::Tensor> params = model->parameters();
  pg.broadcast(params);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: raw process-group collective 'c10d.broadcast_.default' is given a DTensor ('params')
  // CHECK-NOTES: :[[@LINE-2]]:16: note: 'params' holds a DTensor here
  // CHECK-NOTES: :[[@LINE-3]]:3: note: to keep the tensors distributed, call the mesh-aware collective 'meshguard::dist::broadcast_' instead
  // CHECK-FIXES: meshguard::dist::broadcast_(params, 0);
  pg.allreduce(params);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: raw process-group collective 'c10d.allreduce_.default' is given a DTensor ('params')
  // CHECK-NOTES: :[[@LINE-2]]:16: note: 'params' holds a DTensor here
  // CHECK-NOTES: :[[@LINE-3]]:3: note: to keep the tensors distributed, call the mesh-aware collective 'meshguard::dist::all_reduce_' instead
  // CHECK-FIXES: meshguard::dist::all_reduce_(params);
}

// No fix-it where the rewrite would change the meaning: explicit options
// (a root), the Work used.
void optionsOrWorkUsed(c10d::ProcessGroup &pg, const DeviceMesh &mesh) {
  torch::nn::Linear model(8, 2);
  meshguard::distribute_module(*model, mesh);
  std::vector<at::Tensor> params = model->parameters();
  c10d::BroadcastOptions opts;
  pg.broadcast(params, opts);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: raw process-group collective 'c10d.broadcast_.default' is given a DTensor ('params')
  // CHECK-NOTES: :[[@LINE-2]]:16: note: 'params' holds a DTensor here
  // CHECK-NOTES: :[[@LINE-3]]:3: note: to keep the tensors distributed
  // CHECK-FIXES: pg.broadcast(params, opts);
  auto work = pg.broadcast(params);
  // CHECK-NOTES: :[[@LINE-1]]:15: warning: raw process-group collective 'c10d.broadcast_.default' is given a DTensor ('params')
  // CHECK-NOTES: :[[@LINE-2]]:28: note: 'params' holds a DTensor here
  // CHECK-NOTES: :[[@LINE-3]]:15: note: to keep the tensors distributed
  // CHECK-FIXES: auto work = pg.broadcast(params);
}
