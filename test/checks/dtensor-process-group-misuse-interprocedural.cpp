// RUN: %check_meshguard %s dtensor-process-group-misuse %t -- -- -I%stubs

// DTensors reaching a raw c10d collective through a helper of this file:
// reported at the call, with a note at the collective inside the helper.
// The most common real shape is DDP's _sync_module_states: a helper copies
// model->parameters() into a vector and broadcasts it on the raw
// ProcessGroup, called after distribute_module made them DTensors.
#include <meshguard/meshguard.h>
#include <torch/csrc/distributed/c10d/Ops.hpp>
#include <torch/torch.h>

using meshguard::DeviceMesh;
using meshguard::Replicate;

struct NetImpl : torch::nn::Module {
  torch::nn::Linear encoder{nullptr}, head{nullptr};
};
class Net : public torch::nn::ModuleHolder<NetImpl> {
public:
  using torch::nn::ModuleHolder<NetImpl>::ModuleHolder;
};

void syncModuleStates(torch::nn::Module &model, c10d::ProcessGroup &pg) {
  std::vector<at::Tensor> params = model.parameters();
  pg.broadcast(params);
}

void syncParameters(torch::nn::Module &model, c10d::ProcessGroup &pg) {
  std::vector<at::Tensor> params;
  for (auto &p : model.parameters())
    params.push_back(p);
  pg.broadcast(params);
}

void ddpAfterDistribute(c10d::ProcessGroup &pg, const DeviceMesh &mesh) {
  Net net;
  meshguard::distribute_module(*net, mesh);
  syncModuleStates(*net, pg);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: call to 'syncModuleStates' gives raw process-group collective 'c10d.broadcast_.default' a DTensor ('*net'): c10d collectives work on local tensors [dtensor-process-group-misuse]
  // CHECK-NOTES: :25:3: note: the collective is called here; its tensors come from that parameter
  syncParameters(*net, pg);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: call to 'syncParameters' gives raw process-group collective 'c10d.broadcast_.default' a DTensor ('*net')
  // CHECK-NOTES: :32:3: note: the collective is called here
}

// Tensors and vectors, by value, by reference.
void broadcastVector(std::vector<at::Tensor> ts, c10d::ProcessGroup &pg) {
  pg.broadcast(ts);
}
void allreduceRef(std::vector<at::Tensor> &ts, c10d::ProcessGroup &pg) {
  pg.allreduce(ts);
}
void allreduceTensor(const at::Tensor &t, c10d::ProcessGroup &pg) {
  std::vector<at::Tensor> ts = {t};
  pg.allreduce(ts);
}
void allreduceTensorByValue(at::Tensor t,
                            const c10::intrusive_ptr<c10d::ProcessGroup> &pg) {
  c10d::ops::allreduce(pg, {t});
}
// One more level: the summary carries the sink through.
void outer(const at::Tensor &t, c10d::ProcessGroup &pg) { allreduceTensor(t, pg); }

void dtensorsThroughHelpers(c10d::ProcessGroup &pg,
                            const c10::intrusive_ptr<c10d::ProcessGroup> &pgp,
                            const DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  std::vector<at::Tensor> ws = {w};
  broadcastVector(ws, pg);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: call to 'broadcastVector' gives raw process-group collective 'c10d.broadcast_.default' a DTensor ('ws')
  // CHECK-NOTES: :48:3: note: the collective is called here
  allreduceRef(ws, pg);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: call to 'allreduceRef' gives raw process-group collective 'c10d.allreduce_.default' a DTensor ('ws')
  // CHECK-NOTES: :51:3: note: the collective is called here
  allreduceTensor(w, pg);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: call to 'allreduceTensor' gives raw process-group collective 'c10d.allreduce_.default' a DTensor ('w')
  // CHECK-NOTES: :55:3: note: the collective is called here
  allreduceTensorByValue(w, pgp);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: call to 'allreduceTensorByValue' gives raw process-group collective 'c10d.allreduce_.default' a DTensor ('w')
  // CHECK-NOTES: :59:3: note: the collective is called here
  outer(w, pg);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: call to 'outer' gives raw process-group collective 'c10d.allreduce_.default' a DTensor ('w')
  // CHECK-NOTES: :55:3: note: the collective is called here
}

void maybeThroughHelper(c10d::ProcessGroup &pg, const DeviceMesh &mesh, bool c) {
  at::Tensor t = torch::randn({4});
  if (c)
    t = meshguard::distribute_tensor(t, mesh, {Replicate{}});
  allreduceTensor(t, pg);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: call to 'allreduceTensor' may give raw process-group collective 'c10d.allreduce_.default' a DTensor ('t') on some path: c10d collectives work on local tensors
  // CHECK-NOTES: :55:3: note: the collective is called here
}

// Negative twins: the module never distributed, local tensors, unknown
// tensors, a helper that makes the tensors local itself, recursion.

void ddpWithoutDistribute(c10d::ProcessGroup &pg) {
  Net net;
  syncModuleStates(*net, pg);
  syncParameters(*net, pg);
}

void localsThroughHelpers(c10d::ProcessGroup &pg, const DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  at::Tensor l = meshguard::to_local(w);
  std::vector<at::Tensor> ls = {l};
  broadcastVector(ls, pg);
  allreduceRef(ls, pg);
  allreduceTensor(l, pg);
  outer(l, pg);
}

void unknownThroughHelpers(c10d::ProcessGroup &pg, at::Tensor t,
                           std::vector<at::Tensor> ts) {
  broadcastVector(ts, pg);
  allreduceTensor(t, pg);
}

void localises(const at::Tensor &t, c10d::ProcessGroup &pg) {
  std::vector<at::Tensor> ts = {meshguard::to_local(t)};
  pg.allreduce(ts);
}
void recursive(const at::Tensor &t, c10d::ProcessGroup &pg, int n) {
  if (n > 0)
    recursive(t, pg, n - 1);
  std::vector<at::Tensor> ts = {t};
  pg.allreduce(ts);
}

void helperThatLocalises(c10d::ProcessGroup &pg, const DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  localises(w, pg);
}
