// RUN: %check_meshguard %s dtensor-collective-without-mesh %t -- -- -I%stubs

// A module reaching a gradient-sync helper: when the helper's collective
// gets only the module's parameters(), a module never given to
// distribute_module is reported at the call, with a note at the module and
// a fix-it that distributes it after its declaration (once per module).
#include <meshguard/meshguard.h>
#include <torch/torch.h>

using meshguard::DeviceMesh;

struct NetImpl : torch::nn::Module {
  torch::nn::Linear encoder{nullptr}, head{nullptr};
};
class Net : public torch::nn::ModuleHolder<NetImpl> {
public:
  using torch::nn::ModuleHolder<NetImpl>::ModuleHolder;
};

void syncGradients(torch::nn::Module &model) {
  std::vector<at::Tensor> grads;
  for (auto &p : model.parameters())
    grads.push_back(p.grad().contiguous());
  meshguard::dist::all_reduce_(grads);
}

// One more level: the summary carries the module parameter through.
void step(torch::nn::Module &model) { syncGradients(model); }

void forgotTheHead() {
  DeviceMesh mesh("cpu", {0, 1});
  Net body;
  meshguard::distribute_module(*body, mesh);
  torch::nn::Linear head(8, 2);
  // CHECK-FIXES: torch::nn::Linear head(8, 2);
  // CHECK-FIXES-NEXT: meshguard::distribute_module(*head, mesh);
  syncGradients(*body);
  syncGradients(*head);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: call to 'syncGradients' reaches collective 'c10d.allreduce_.default' with no DeviceMesh: module 'head' was never passed to meshguard::distribute_module, so its parameters are plain tensors and the runtime will throw 'found no DeviceMesh from dtensor args for c10d.allreduce_.default' [dtensor-collective-without-mesh]
  // CHECK-NOTES: :[[@LINE-6]]:21: note: 'head' is created here; distribute it with 'meshguard::distribute_module(*head, mesh)' before training
  // CHECK-NOTES: :24:3: note: the collective is called here on tensors of the module's parameters()
  step(*head);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: call to 'step' reaches collective 'c10d.allreduce_.default' with no DeviceMesh: module 'head'
  // CHECK-NOTES: :[[@LINE-10]]:21: note: 'head' is created here
  // CHECK-NOTES: :24:3: note: the collective is called here
}

// A module object (not a holder) is passed as it is.
void moduleObject(const DeviceMesh &mesh) {
  NetImpl net;
  // CHECK-FIXES: NetImpl net;
  // CHECK-FIXES-NEXT: meshguard::distribute_module(net, mesh);
  syncGradients(net);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: call to 'syncGradients' reaches collective 'c10d.allreduce_.default' with no DeviceMesh: module 'net' was never
  // CHECK-NOTES: :[[@LINE-5]]:11: note: 'net' is created here; distribute it with 'meshguard::distribute_module(net, mesh)' before training
  // CHECK-NOTES: :24:3: note: the collective is called here
}

// No DeviceMesh declared before the module: the warning and the note, no fix.
void meshDeclaredLater() {
  auto model = std::make_shared<NetImpl>();
  DeviceMesh mesh("cpu", {0, 1});
  syncGradients(*model);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: call to 'syncGradients' reaches collective 'c10d.allreduce_.default' with no DeviceMesh: module 'model' was never
  // CHECK-NOTES: :[[@LINE-4]]:8: note: 'model' is created here; distribute it with 'meshguard::distribute_module(*model, mesh)' before training
  // CHECK-NOTES: :24:3: note: the collective is called here
}

// Negative twins: distributed, distributed in part, a parameter (unknown).
void distributed(const DeviceMesh &mesh) {
  Net model;
  meshguard::distribute_module(*model, mesh);
  syncGradients(*model);
}

void partly(const DeviceMesh &mesh) {
  Net model;
  meshguard::distribute_module(*model->encoder, mesh);
  syncGradients(*model);
}

void fromCaller(torch::nn::Module &model) { syncGradients(model); }

// A helper whose collective also sees a DTensor: the module alone does not
// decide, so no warning.
void syncWith(torch::nn::Module &model, const at::Tensor &extra) {
  std::vector<at::Tensor> grads = model.parameters();
  grads.push_back(extra);
  meshguard::dist::all_reduce_(grads);
}

void mixedSync(const DeviceMesh &mesh) {
  Net model;
  at::Tensor t = meshguard::distribute_tensor(torch::ones({2}), mesh, {meshguard::Replicate{}});
  syncWith(*model, t);
}

// A helper whose collective has no mesh whatever the module is: reported
// inside the helper, not blamed on the module at the call.
void logOnes(torch::nn::Module &model) {
  meshguard::dist::all_reduce_({torch::ones({1})});
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: collective 'c10d.allreduce_.default' has no DeviceMesh
  // CHECK-NOTES: :[[@LINE-2]]:33: note: 'torch::ones({1})' is a plain tensor: it comes from torch::ones() here
  // CHECK-NOTES: :[[@LINE-3]]:3: note: no meshguard::DeviceMesh is in scope
}

void notBlamed() {
  Net model;
  logOnes(*model);
}

// Directly, the note names the module that was never distributed, and the
// fix distributes it (once: the second collective needs no fix then).
void directly(const DeviceMesh &mesh) {
  torch::nn::Linear head(8, 2);
  // CHECK-FIXES: torch::nn::Linear head(8, 2);
  // CHECK-FIXES-NEXT: meshguard::distribute_module(*head, mesh);
  meshguard::dist::all_reduce_(head->parameters());
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: collective 'c10d.allreduce_.default' has no DeviceMesh
  // CHECK-NOTES: :[[@LINE-5]]:21: note: 'head->parameters()' holds only plain tensors: module 'head' is created here and never passed to meshguard::distribute_module
  // CHECK-FIXES: meshguard::dist::all_reduce_(head->parameters());
  meshguard::dist::broadcast_(head->parameters(), 0);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: collective 'c10d.broadcast_.default' has no DeviceMesh
  // CHECK-NOTES: :[[@LINE-9]]:21: note: 'head->parameters()' holds only plain tensors
  // CHECK-FIXES: meshguard::dist::broadcast_(head->parameters(), 0);
}

// With no mesh before the module, the guarded rewrite is the fix.
void meshAfterModule() {
  torch::nn::Linear head(8, 2);
  DeviceMesh mesh("cpu", {0, 1});
  meshguard::dist::all_reduce_(head->parameters());
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: collective 'c10d.allreduce_.default' has no DeviceMesh
  // CHECK-NOTES: :[[@LINE-4]]:21: note: 'head->parameters()' holds only plain tensors
  // CHECK-FIXES: meshguard::guarded::all_reduce_(head->parameters(), mesh);
}
