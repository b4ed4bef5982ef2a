// RUN: %check_meshguard -check-suffix=CWM %s dtensor-collective-without-mesh %t -- -- -I%stubs
// RUN: %check_meshguard -check-suffix=PG %s dtensor-process-group-misuse %t -- -- -I%stubs
// RUN: %check_meshguard -check-suffix=MIX %s dtensor-mixed-tensor-op %t -- -- -I%stubs

// A local std::function initialised from a lambda (`std::function<...> fn =
// [..](...) {...}`, `auto fn = std::function<...>(lambda)`) and never
// changed afterwards: a call through it is a call to the lambda, reported
// at the call with a note inside the lambda. Reassigned, or changed where
// the analysis cannot see (its address taken, passed by non-const
// reference): its target is unknown, never a finding.
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

void changeSomehow(std::function<void(const at::Tensor &)> &f);

// dtensor-collective-without-mesh.
void withoutMesh(const DeviceMesh &mesh) {
  std::function<void(const at::Tensor &)> sync = [](const at::Tensor &g) {
    meshguard::dist::all_reduce_({g});
  };
  at::Tensor dt = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  sync(meshguard::to_local(dt));
  // CHECK-NOTES-CWM: :[[@LINE-1]]:3: warning: call to 'sync' reaches collective 'c10d.allreduce_.default' with no DeviceMesh: argument 'meshguard::to_local(dt)' is a plain at::Tensor, so the runtime will throw 'found no DeviceMesh from dtensor args for c10d.allreduce_.default' [dtensor-collective-without-mesh]
  // CHECK-NOTES-CWM: :[[@LINE-2]]:8: note: 'meshguard::to_local(dt)' is a plain tensor: it comes from to_local() here
  // CHECK-NOTES-CWM: :[[@LINE-6]]:5: note: the collective is called here; its tensor arguments come only from that parameter
  // Negative twin: given the DTensor.
  sync(dt);
}

void withoutMeshFunctionalCast() {
  auto sync = std::function<void(at::Tensor)>(
      [](at::Tensor g) { meshguard::dist::all_reduce_({g}); });
  sync(torch::zeros({4}));
  // CHECK-NOTES-CWM: :[[@LINE-1]]:3: warning: call to 'sync' reaches collective 'c10d.allreduce_.default' with no DeviceMesh: argument 'torch::zeros({4})' is a plain at::Tensor
  // CHECK-NOTES-CWM: :[[@LINE-2]]:8: note: 'torch::zeros({4})' is a plain tensor: it comes from torch::zeros() here
  // CHECK-NOTES-CWM: :[[@LINE-4]]:26: note: the collective is called here; its tensor arguments come only from that parameter
}

void withoutMeshCapturedModule(const DeviceMesh &mesh) {
  Net net;
  std::function<void()> syncGrads = [&] {
    for (auto &p : net->parameters())
      meshguard::dist::all_reduce_({p.grad()});
  };
  syncGrads();
  // CHECK-NOTES-CWM: :[[@LINE-1]]:3: warning: call to 'syncGrads' reaches collective 'c10d.allreduce_.default' with no DeviceMesh: module 'net' was never passed to meshguard::distribute_module{{.*}}
  // CHECK-NOTES-CWM: :[[@LINE-7]]:7: note: 'net' is created here; distribute it with 'meshguard::distribute_module(*net, mesh)' before training
  // CHECK-NOTES-CWM: :[[@LINE-5]]:7: note: the collective is called here on tensors of the module's parameters()
  // CHECK-FIXES-CWM: {{^}}void withoutMeshCapturedModule(const DeviceMesh &mesh) {{{$}}
  // CHECK-FIXES-CWM-NEXT: {{^}}  Net net;{{$}}
  // CHECK-FIXES-CWM-NEXT: {{^}}  meshguard::distribute_module(*net, mesh);{{$}}
}

// Negative twins: reassigned (even to a lambda that does the same), or
// handed out by non-const reference: the target is unknown.
void withoutMeshReassigned() {
  std::function<void(const at::Tensor &)> sync = [](const at::Tensor &g) {
    meshguard::dist::all_reduce_({g});
  };
  sync = [](const at::Tensor &g) { meshguard::dist::all_reduce_({g}); };
  sync(torch::zeros({4}));
}
void withoutMeshHandedOut() {
  std::function<void(const at::Tensor &)> sync = [](const at::Tensor &g) {
    meshguard::dist::all_reduce_({g});
  };
  changeSomehow(sync);
  sync(torch::zeros({4}));
}

// dtensor-process-group-misuse.
void processGroup(c10d::ProcessGroup &pg, const DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  std::function<void(const at::Tensor &)> reduceOne = [&pg](const at::Tensor &t) {
    std::vector<at::Tensor> ts = {t};
    pg.allreduce(ts);
  };
  reduceOne(w);
  // CHECK-NOTES-PG: :[[@LINE-1]]:3: warning: call to 'reduceOne' gives raw process-group collective 'c10d.allreduce_.default' a DTensor ('w'): c10d collectives work on local tensors [dtensor-process-group-misuse]
  // CHECK-NOTES-PG: :[[@LINE-4]]:5: note: the collective is called here; its tensors come from that parameter
  // Negative twin: the local tensor.
  reduceOne(meshguard::to_local(w));
}

// Negative twin: reassigned.
void processGroupReassigned(c10d::ProcessGroup &pg, const DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  std::function<void(const at::Tensor &)> reduceOne = [&pg](const at::Tensor &t) {
    std::vector<at::Tensor> ts = {t};
    pg.allreduce(ts);
  };
  reduceOne = [](const at::Tensor &) {};
  reduceOne(w);
}

// dtensor-mixed-tensor-op.
void mixed(const DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  std::function<at::Tensor(const at::Tensor &)> addNoise = [](const at::Tensor &t) {
    at::Tensor noise = torch::randn({4});
    return t + noise;
  };
  at::Tensor a = addNoise(w);
  // CHECK-NOTES-MIX: :[[@LINE-1]]:18: warning: call to 'addNoise' makes a tensor op inside it mix the DTensor 'w' with a plain tensor: the runtime throws 'mixed torch.Tensor and DTensor' [dtensor-mixed-tensor-op]
  // CHECK-NOTES-MIX: :[[@LINE-4]]:12: note: the tensor op is here; its other operand is a plain tensor
  // Negative twin: a plain tensor.
  at::Tensor b = addNoise(torch::zeros({4}));
}

// Negative twin: reassigned.
void mixedReassigned(const DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  std::function<at::Tensor(const at::Tensor &)> addNoise = [](const at::Tensor &t) {
    at::Tensor noise = torch::randn({4});
    return t + noise;
  };
  addNoise = [](const at::Tensor &t) { return t; };
  at::Tensor a = addNoise(w);
}
