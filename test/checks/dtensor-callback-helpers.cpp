// RUN: %check_meshguard -check-suffix=CWM %s dtensor-collective-without-mesh %t -- -- -I%stubs
// RUN: %check_meshguard -check-suffix=PG %s dtensor-process-group-misuse %t -- -- -I%stubs
// RUN: %check_meshguard -check-suffix=MIX %s dtensor-mixed-tensor-op %t -- -- -I%stubs

// A lambda handed to a helper of this file that calls it through a
// std::function parameter (`for_each_param(model, [&](at::Tensor &p) {...})`)
// or a template parameter: the helper is summarised for that call with the
// parameter bound to the lambda, so what the lambda's collective (or tensor
// op) does with the tensors the helper passes it is reported at the outer
// call, with a note at the collective inside the lambda. A helper that
// changes the std::function before calling it: unknown, no finding.
#include <meshguard/meshguard.h>
#include <torch/csrc/distributed/c10d/Ops.hpp>
#include <torch/torch.h>
#include <functional>

using meshguard::DeviceMesh;
using meshguard::Replicate;

struct NetImpl : torch::nn::Module {
  torch::nn::Linear encoder{nullptr};
};
class Net : public torch::nn::ModuleHolder<NetImpl> {
public:
  using torch::nn::ModuleHolder<NetImpl>::ModuleHolder;
};

void for_each_param(Net &model, const std::function<void(at::Tensor &)> &f) {
  for (auto &p : model->parameters())
    f(p);
}
template <typename F> void for_each_param_t(Net &model, F f) {
  for (auto &p : model->parameters())
    f(p);
}
void apply(at::Tensor &t, std::function<void(at::Tensor &)> f) { f(t); }
// Changes its callback before calling it: the target is unknown.
void for_each_param_changed(Net &model, std::function<void(at::Tensor &)> f) {
  f = [](at::Tensor &) {};
  for (auto &p : model->parameters())
    f(p);
}

// dtensor-collective-without-mesh: parameters() of a module never
// distributed.
void syncNeverDistributed(const DeviceMesh &mesh) {
  Net model;
  for_each_param(model, [&](at::Tensor &p) { meshguard::dist::all_reduce_({p.grad()}); });
  // CHECK-NOTES-CWM: :[[@LINE-1]]:3: warning: call to 'for_each_param' reaches collective 'c10d.allreduce_.default' with no DeviceMesh: module 'model' was never passed to meshguard::distribute_module, so its parameters are plain tensors and the runtime will throw 'found no DeviceMesh from dtensor args for c10d.allreduce_.default' [dtensor-collective-without-mesh]
  // CHECK-NOTES-CWM: :[[@LINE-3]]:7: note: 'model' is created here; distribute it with 'meshguard::distribute_module(*model, mesh)' before training
  // CHECK-NOTES-CWM: :[[@LINE-3]]:46: note: the collective is called here on tensors of the module's parameters()
  // CHECK-FIXES-CWM: {{^}}void syncNeverDistributed(const DeviceMesh &mesh) {{{$}}
  // CHECK-FIXES-CWM-NEXT: {{^}}  Net model;{{$}}
  // CHECK-FIXES-CWM-NEXT: {{^}}  meshguard::distribute_module(*model, mesh);{{$}}
}

void syncNamedCallback(const DeviceMesh &mesh) {
  Net model;
  auto reduceGrad = [](at::Tensor &p) { meshguard::dist::all_reduce_({p.grad()}); };
  for_each_param(model, reduceGrad);
  // CHECK-NOTES-CWM: :[[@LINE-1]]:3: warning: call to 'for_each_param' reaches collective 'c10d.allreduce_.default' with no DeviceMesh: module 'model' was never passed to meshguard::distribute_module{{.*}}
  // CHECK-NOTES-CWM: :[[@LINE-4]]:7: note: 'model' is created here; distribute it with 'meshguard::distribute_module(*model, mesh)' before training
  // CHECK-NOTES-CWM: :[[@LINE-4]]:41: note: the collective is called here on tensors of the module's parameters()
  // CHECK-FIXES-CWM: {{^}}void syncNamedCallback(const DeviceMesh &mesh) {{{$}}
  // CHECK-FIXES-CWM-NEXT: {{^}}  Net model;{{$}}
  // CHECK-FIXES-CWM-NEXT: {{^}}  meshguard::distribute_module(*model, mesh);{{$}}
}

void syncThroughTemplate(const DeviceMesh &mesh) {
  Net model;
  for_each_param_t(model, [&](at::Tensor &p) { meshguard::dist::all_reduce_({p.grad()}); });
  // CHECK-NOTES-CWM: :[[@LINE-1]]:3: warning: call to 'for_each_param_t' reaches collective 'c10d.allreduce_.default' with no DeviceMesh: module 'model' was never passed to meshguard::distribute_module{{.*}}
  // CHECK-NOTES-CWM: :[[@LINE-3]]:7: note: 'model' is created here; distribute it with 'meshguard::distribute_module(*model, mesh)' before training
  // CHECK-NOTES-CWM: :[[@LINE-3]]:48: note: the collective is called here on tensors of the module's parameters()
  // CHECK-FIXES-CWM: {{^}}void syncThroughTemplate(const DeviceMesh &mesh) {{{$}}
  // CHECK-FIXES-CWM-NEXT: {{^}}  Net model;{{$}}
  // CHECK-FIXES-CWM-NEXT: {{^}}  meshguard::distribute_module(*model, mesh);{{$}}
}

void syncPassedThrough(const DeviceMesh &mesh) {
  at::Tensor dt = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  at::Tensor local = meshguard::to_local(dt);
  apply(local, [](at::Tensor &x) { meshguard::dist::all_reduce_({x}); });
  // CHECK-NOTES-CWM: :[[@LINE-1]]:3: warning: call to 'apply' reaches collective 'c10d.allreduce_.default' with no DeviceMesh: argument 'local' is a plain at::Tensor{{.*}}
  // CHECK-NOTES-CWM: :[[@LINE-3]]:22: note: 'local' is a plain tensor: it comes from to_local() here
  // CHECK-NOTES-CWM: :[[@LINE-3]]:36: note: the collective is called here; its tensor arguments come only from that parameter
  // Negative twin: the DTensor.
  apply(dt, [](at::Tensor &x) { meshguard::dist::all_reduce_({x}); });
}

// Negative twins: distributed first; a helper that changes its callback.
void syncDistributed(const DeviceMesh &mesh) {
  Net model;
  meshguard::distribute_module(*model, mesh);
  for_each_param(model, [&](at::Tensor &p) { meshguard::dist::all_reduce_({p.grad()}); });
  for_each_param_t(model, [&](at::Tensor &p) { meshguard::dist::all_reduce_({p.grad()}); });
}
void syncThroughChangedCallback() {
  Net model;
  for_each_param_changed(model, [&](at::Tensor &p) { meshguard::dist::all_reduce_({p.grad()}); });
}

// dtensor-process-group-misuse: the DDP _sync_module_states shape, one
// parameter at a time, after distribute_module.
void broadcastDistributed(c10d::ProcessGroup &pg, const DeviceMesh &mesh) {
  Net model;
  meshguard::distribute_module(*model, mesh);
  for_each_param(model, [&pg](at::Tensor &p) {
    std::vector<at::Tensor> ts = {p};
    pg.broadcast(ts);
  });
  // CHECK-NOTES-PG: :[[@LINE-4]]:3: warning: call to 'for_each_param' gives raw process-group collective 'c10d.broadcast_.default' a DTensor ('model'): c10d collectives work on local tensors [dtensor-process-group-misuse]
  // CHECK-NOTES-PG: :[[@LINE-3]]:5: note: the collective is called here
  at::Tensor w = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  apply(w, [&pg](at::Tensor &x) {
    std::vector<at::Tensor> ts = {x};
    pg.allreduce(ts);
  });
  // CHECK-NOTES-PG: :[[@LINE-4]]:3: warning: call to 'apply' gives raw process-group collective 'c10d.allreduce_.default' a DTensor ('w')
  // CHECK-NOTES-PG: :[[@LINE-3]]:5: note: the collective is called here; its tensors come from that parameter
}

// Negative twins: never distributed; the local tensor.
void broadcastNeverDistributed(c10d::ProcessGroup &pg, const DeviceMesh &mesh) {
  Net model;
  for_each_param(model, [&pg](at::Tensor &p) {
    std::vector<at::Tensor> ts = {p};
    pg.broadcast(ts);
  });
  at::Tensor w = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  at::Tensor local = meshguard::to_local(w);
  apply(local, [&pg](at::Tensor &x) {
    std::vector<at::Tensor> ts = {x};
    pg.allreduce(ts);
  });
}

// dtensor-mixed-tensor-op: the helper passes the caller's tensor through.
void mixed(const DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  apply(w, [](at::Tensor &x) {
    at::Tensor noise = torch::randn({4});
    x.add_(noise);
  });
  // CHECK-NOTES-MIX: :[[@LINE-4]]:3: warning: call to 'apply' makes a tensor op inside it mix the DTensor 'w' with a plain tensor: the runtime throws 'mixed torch.Tensor and DTensor' [dtensor-mixed-tensor-op]
  // CHECK-NOTES-MIX: :[[@LINE-3]]:5: note: the tensor op is here; its other operand is a plain tensor
  // Negative twin: a plain tensor.
  at::Tensor p = torch::zeros({4});
  apply(p, [](at::Tensor &x) {
    at::Tensor noise = torch::randn({4});
    x.add_(noise);
  });
}
