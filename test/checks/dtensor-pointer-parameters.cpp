// RUN: %check_meshguard -check-suffix=PG %s dtensor-process-group-misuse %t -- -- -I%stubs
// RUN: %check_meshguard -check-suffix=MIX %s dtensor-mixed-tensor-op %t -- -- -I%stubs
// RUN: %check_meshguard -check-suffix=CWM %s dtensor-collective-without-mesh %t -- -- -I%stubs

// Helpers that take the tensor, the vector or the module through a pointer,
// called with `&x` (a module also with `holder.get()`): followed like a
// reference parameter. A pointer variable as the argument is followed when
// it is initialised with `&x` and never changed (dtensor-pointer-variables.cpp).
#include <meshguard/meshguard.h>
#include <torch/csrc/distributed/c10d/Ops.hpp>
#include <torch/torch.h>

using meshguard::DeviceMesh;
using meshguard::Replicate;

struct NetImpl : torch::nn::Module {
  torch::nn::Linear encoder{nullptr};
};
class Net : public torch::nn::ModuleHolder<NetImpl> {
public:
  using torch::nn::ModuleHolder<NetImpl>::ModuleHolder;
};

// dtensor-process-group-misuse.
void bcast(std::vector<at::Tensor> *v, c10d::ProcessGroup &pg) {
  pg.broadcast(*v);
}
void reduceOne(at::Tensor *t, c10d::ProcessGroup &pg) {
  std::vector<at::Tensor> ts = {*t};
  pg.allreduce(ts);
}
void syncStates(torch::nn::Module *m, c10d::ProcessGroup &pg) {
  std::vector<at::Tensor> ps = m->parameters();
  pg.broadcast(ps);
}

void processGroup(c10d::ProcessGroup &pg, const DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  std::vector<at::Tensor> ws = {w};
  bcast(&ws, pg);
  // CHECK-NOTES-PG: :[[@LINE-1]]:3: warning: call to 'bcast' gives raw process-group collective 'c10d.broadcast_.default' a DTensor ('ws'): c10d collectives work on local tensors [dtensor-process-group-misuse]
  // CHECK-NOTES-PG: :26:3: note: the collective is called here; its tensors come from that parameter
  reduceOne(&w, pg);
  // CHECK-NOTES-PG: :[[@LINE-1]]:3: warning: call to 'reduceOne' gives raw process-group collective 'c10d.allreduce_.default' a DTensor ('w')
  // CHECK-NOTES-PG: :30:3: note: the collective is called here
  Net net;
  meshguard::distribute_module(*net, mesh);
  syncStates(net.get(), pg);
  // CHECK-NOTES-PG: :[[@LINE-1]]:3: warning: call to 'syncStates' gives raw process-group collective 'c10d.broadcast_.default' a DTensor ('net.get()')
  // CHECK-NOTES-PG: :34:3: note: the collective is called here
  NetImpl impl;
  meshguard::distribute_module(impl, mesh);
  syncStates(&impl, pg);
  // CHECK-NOTES-PG: :[[@LINE-1]]:3: warning: call to 'syncStates' gives raw process-group collective 'c10d.broadcast_.default' a DTensor ('impl')
  // CHECK-NOTES-PG: :34:3: note: the collective is called here
  // A pointer variable initialised with `&w` and never changed: the same
  // (more in dtensor-pointer-variables.cpp).
  at::Tensor *ptr = &w;
  reduceOne(ptr, pg);
  // CHECK-NOTES-PG: :[[@LINE-1]]:3: warning: call to 'reduceOne' gives raw process-group collective 'c10d.allreduce_.default' a DTensor ('w')
  // CHECK-NOTES-PG: :30:3: note: the collective is called here
  // Negative twins: plain tensors, a module never distributed.
  at::Tensor p = torch::zeros({4});
  reduceOne(&p, pg);
  Net other;
  syncStates(other.get(), pg);
}

// dtensor-mixed-tensor-op.
at::Tensor addNoise(const at::Tensor *t) {
  at::Tensor noise = torch::randn({4});
  return *t + noise;
}

void mixed(const DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  at::Tensor a = addNoise(&w);
  // CHECK-NOTES-MIX: :[[@LINE-1]]:18: warning: call to 'addNoise' makes a tensor op inside it mix the DTensor 'w' with a plain tensor: the runtime throws 'mixed torch.Tensor and DTensor' [dtensor-mixed-tensor-op]
  // CHECK-NOTES-MIX: :72:10: note: the tensor op is here; its other operand is a plain tensor
  // Negative twin: a plain tensor.
  at::Tensor p = torch::zeros({4});
  at::Tensor b = addNoise(&p);
}

// dtensor-collective-without-mesh.
void sync(at::Tensor *t) { meshguard::dist::all_reduce_({*t}); }
void syncGrads(NetImpl *m) {
  for (auto &p : m->parameters())
    meshguard::dist::all_reduce_({p.grad()});
}

void withoutMesh(const DeviceMesh &mesh) {
  at::Tensor dt = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  at::Tensor local = meshguard::to_local(dt);
  sync(&local);
  // CHECK-NOTES-CWM: :[[@LINE-1]]:3: warning: call to 'sync' reaches collective 'c10d.allreduce_.default' with no DeviceMesh: argument 'local' is a plain at::Tensor, so the runtime will throw 'found no DeviceMesh from dtensor args for c10d.allreduce_.default' [dtensor-collective-without-mesh]
  // CHECK-NOTES-CWM: :[[@LINE-3]]:22: note: 'local' is a plain tensor: it comes from to_local() here
  // CHECK-NOTES-CWM: :86:28: note: the collective is called here; its tensor arguments come only from that parameter
  Net net;
  syncGrads(net.get());
  // CHECK-NOTES-CWM: :[[@LINE-1]]:3: warning: call to 'syncGrads' reaches collective 'c10d.allreduce_.default' with no DeviceMesh: module 'net' was never passed to meshguard::distribute_module
  // CHECK-NOTES-CWM: :[[@LINE-3]]:7: note: 'net' is created here; distribute it with 'meshguard::distribute_module(*net, mesh)' before training
  // CHECK-NOTES-CWM: :89:5: note: the collective is called here on tensors of the module's parameters()
  // CHECK-FIXES-CWM: {{^}}  Net net;{{$}}
  // CHECK-FIXES-CWM-NEXT: {{^}}  meshguard::distribute_module(*net, mesh);{{$}}
  // Negative twins: a DTensor, a distributed module.
  sync(&dt);
  NetImpl impl;
  meshguard::distribute_module(impl, mesh);
  syncGrads(&impl);
}
