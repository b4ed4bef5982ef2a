// RUN: %check_meshguard %s dtensor-collective-without-mesh %t -- -- -I%stubs

// A lambda or a function object called directly, given the tensor or the
// module as a parameter, whose collective has a mesh only through that
// parameter: given a plain tensor (or a module never distributed), reported
// at the call, with a note at the collective inside.
#include <meshguard/meshguard.h>
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

void lambdaTakesTensor(const DeviceMesh &mesh) {
  auto sync = [](const at::Tensor &g) { meshguard::dist::all_reduce_({g}); };
  at::Tensor dt = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  sync(meshguard::to_local(dt));
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: call to 'sync' reaches collective 'c10d.allreduce_.default' with no DeviceMesh: argument 'meshguard::to_local(dt)' is a plain at::Tensor, so the runtime will throw 'found no DeviceMesh from dtensor args for c10d.allreduce_.default' [dtensor-collective-without-mesh]
  // CHECK-NOTES: :[[@LINE-2]]:8: note: 'meshguard::to_local(dt)' is a plain tensor: it comes from to_local() here
  // CHECK-NOTES: :[[@LINE-5]]:41: note: the collective is called here; its tensor arguments come only from that parameter
  // Negative twin: given the DTensor.
  sync(dt);
}

void lambdaTakesModule(const DeviceMesh &mesh) {
  Net net;
  auto syncGrads = [](torch::nn::Module &m) {
    for (auto &p : m.parameters())
      meshguard::dist::all_reduce_({p.grad()});
  };
  syncGrads(*net);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: call to 'syncGrads' reaches collective 'c10d.allreduce_.default' with no DeviceMesh: module 'net' was never passed to meshguard::distribute_module{{.*}}
  // CHECK-NOTES: :[[@LINE-7]]:7: note: 'net' is created here; distribute it with 'meshguard::distribute_module(*net, mesh)' before training
  // CHECK-NOTES: :[[@LINE-5]]:7: note: the collective is called here on tensors of the module's parameters()
  // CHECK-FIXES: {{^}}  Net net;{{$}}
  // CHECK-FIXES-NEXT: {{^}}  meshguard::distribute_module(*net, mesh);{{$}}
}

struct AllReduce {
  void operator()(at::Tensor g) const { meshguard::dist::all_reduce_({g}); }
};

void functorTakesTensor() {
  AllReduce reduce;
  reduce(torch::zeros({4}));
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: call to 'reduce' reaches collective 'c10d.allreduce_.default' with no DeviceMesh: argument 'torch::zeros({4})' is a plain at::Tensor
  // CHECK-NOTES: :[[@LINE-2]]:10: note: 'torch::zeros({4})' is a plain tensor: it comes from torch::zeros() here
  // CHECK-NOTES: :48:41: note: the collective is called here; its tensor arguments come only from that parameter
}

// Negative twin: the lambda's collective does not depend on the parameter
// alone (a DTensor is always among its arguments).
void notTheOnlyCarrier(const DeviceMesh &mesh) {
  at::Tensor dt = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  auto sync = [&](const at::Tensor &g) { meshguard::dist::all_reduce_({g, dt}); };
  sync(torch::zeros({4}));
}

// Captured by reference and changed after the lambda is made: what the
// lambda sees is read where it is called.
void capturedChangedBeforeTheCall(const DeviceMesh &mesh) {
  at::Tensor dt = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  at::Tensor g = dt;
  auto sync = [&] { meshguard::dist::all_reduce_({g}); };
  g = meshguard::to_local(dt);
  sync();
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: call to 'sync' reaches collective 'c10d.allreduce_.default' with no DeviceMesh: argument 'g' is a plain at::Tensor{{.*}}
  // CHECK-NOTES: :[[@LINE-3]]:7: note: 'g' is a plain tensor: it comes from to_local() here
  // CHECK-NOTES: :[[@LINE-5]]:21: note: the collective is called here; its tensor arguments come only from that captured variable
  // Negative twin: a DTensor again at the second call.
  g = dt;
  sync();
}

void capturedModule(const DeviceMesh &mesh) {
  Net net;
  auto syncGrads = [&] {
    for (auto &p : net->parameters())
      meshguard::dist::all_reduce_({p.grad()});
  };
  syncGrads();
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: call to 'syncGrads' reaches collective 'c10d.allreduce_.default' with no DeviceMesh: module 'net' was never passed to meshguard::distribute_module{{.*}}
  // CHECK-NOTES: :[[@LINE-7]]:7: note: 'net' is created here; distribute it with 'meshguard::distribute_module(*net, mesh)' before training
  // CHECK-NOTES: :[[@LINE-5]]:7: note: the collective is called here on tensors of the module's parameters()
  // CHECK-FIXES: {{^}}void capturedModule(const DeviceMesh &mesh) {{{$}}
  // CHECK-FIXES-NEXT: {{^}}  Net net;{{$}}
  // CHECK-FIXES-NEXT: {{^}}  meshguard::distribute_module(*net, mesh);{{$}}
}

// Negative twin: distributed before the call.
void capturedModuleDistributed(const DeviceMesh &mesh) {
  Net net;
  auto syncGrads = [&] {
    for (auto &p : net->parameters())
      meshguard::dist::all_reduce_({p.grad()});
  };
  meshguard::distribute_module(*net, mesh);
  syncGrads();
}

// A lambda behind a local std::function never changed after: the same
// (more shapes in dtensor-std-function-locals.cpp).
void throughStdFunction() {
  std::function<void(const at::Tensor &)> sync = [](const at::Tensor &g) {
    meshguard::dist::all_reduce_({g});
  };
  sync(torch::zeros({4}));
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: call to 'sync' reaches collective 'c10d.allreduce_.default' with no DeviceMesh: argument 'torch::zeros({4})' is a plain at::Tensor
  // CHECK-NOTES: :[[@LINE-2]]:8: note: 'torch::zeros({4})' is a plain tensor: it comes from torch::zeros() here
  // CHECK-NOTES: :[[@LINE-5]]:5: note: the collective is called here; its tensor arguments come only from that parameter
}

// A lambda handed to a function template of this file that calls it: the
// instantiation calls the lambda's operator() directly, so its summary
// carries the sink out to the call.
template <typename F> void callWith(F f, const at::Tensor &t) { f(t); }
void passedToATemplate() {
  callWith([](const at::Tensor &g) { meshguard::dist::all_reduce_({g}); },
           torch::zeros({4}));
  // CHECK-NOTES: :[[@LINE-2]]:3: warning: call to 'callWith' reaches collective 'c10d.allreduce_.default' with no DeviceMesh: argument 'torch::zeros({4})' is a plain at::Tensor
  // CHECK-NOTES: :[[@LINE-2]]:12: note: 'torch::zeros({4})' is a plain tensor: it comes from torch::zeros() here
  // CHECK-NOTES: :[[@LINE-4]]:38: note: the collective is called here; its tensor arguments come only from that parameter
}
