// RUN: %check_meshguard %s dtensor-collective-without-mesh,dtensor-process-group-misuse %t -- -- -I%stubs

// named_parameters() is parameters() by name: a torch::OrderedDict whose
// tensors are DTensors after distribute_module, plain for a module built here
// and never distributed, unknown otherwise. Its items (range-for, front(),
// [i]) give the tensor through value(), *, -> and pair().second; ["name"],
// values() and items() give the tensors too.
#include <meshguard/meshguard.h>
#include <torch/torch.h>

using meshguard::DeviceMesh;

struct NetImpl : torch::nn::Module {
  torch::nn::Linear encoder{nullptr};
};
class Net : public torch::nn::ModuleHolder<NetImpl> {
public:
  using torch::nn::ModuleHolder<NetImpl>::ModuleHolder;
};

void itemValue() {
  Net model;
  for (auto &item : model->named_parameters())
    meshguard::dist::all_reduce_({item.value()});
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: collective 'c10d.allreduce_.default' has no DeviceMesh{{.*}} [dtensor-collective-without-mesh]
}

void itemValueDistributed(const DeviceMesh &mesh) {
  Net model;
  meshguard::distribute_module(*model, mesh);
  for (auto &item : model->named_parameters())
    meshguard::dist::all_reduce_({item.value()});
}

void itemAccessors() {
  NetImpl net;
  std::vector<at::Tensor> grads;
  for (const auto &item : net.named_parameters()) {
    grads.push_back(item->grad());
    grads.push_back(*item);
    grads.push_back(item.pair().second);
  }
  meshguard::dist::all_reduce_(grads);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: collective 'c10d.allreduce_.default' has no DeviceMesh{{.*}} [dtensor-collective-without-mesh]
}

void itemAccessorsDistributed(const DeviceMesh &mesh) {
  NetImpl net;
  meshguard::distribute_module(net, mesh);
  std::vector<at::Tensor> grads;
  for (const auto &item : net.named_parameters()) {
    grads.push_back(item->grad());
    grads.push_back(*item);
    grads.push_back(item.pair().second);
  }
  meshguard::dist::all_reduce_(grads);
}

void byName() {
  Net model;
  at::Tensor w = model->named_parameters()["encoder.weight"];
  meshguard::dist::broadcast_({w.grad()}, 0);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: collective 'c10d.broadcast_.default' has no DeviceMesh{{.*}} [dtensor-collective-without-mesh]
  const auto params = model->named_parameters();
  meshguard::dist::broadcast_({params.front().value(), params[0].value()}, 0);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: collective 'c10d.broadcast_.default' has no DeviceMesh{{.*}} [dtensor-collective-without-mesh]
}

void byNameDistributed(const DeviceMesh &mesh) {
  Net model;
  meshguard::distribute_module(*model, mesh);
  at::Tensor w = model->named_parameters()["encoder.weight"];
  meshguard::dist::broadcast_({w.grad()}, 0);
}

void values() {
  Net model;
  meshguard::dist::all_reduce_(model->named_parameters().values());
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: collective 'c10d.allreduce_.default' has no DeviceMesh{{.*}} [dtensor-collective-without-mesh]
  for (const auto &item : model->named_parameters().items())
    meshguard::dist::broadcast_({item.value()}, 0);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: collective 'c10d.broadcast_.default' has no DeviceMesh{{.*}} [dtensor-collective-without-mesh]
}

void valuesDistributed(const DeviceMesh &mesh) {
  Net model;
  meshguard::distribute_module(*model, mesh);
  meshguard::dist::all_reduce_(model->named_parameters().values());
  for (const auto &item : model->named_parameters().items())
    meshguard::dist::broadcast_({item.value()}, 0);
}

// A non-const loop variable over a temporary (parameters() too): nothing
// reads the temporary after the loop, so writes through it do not matter.
void parametersByReference() {
  Net model;
  std::vector<at::Tensor> grads;
  for (auto &p : model->parameters())
    grads.push_back(p.grad());
  meshguard::dist::all_reduce_(grads);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: collective 'c10d.allreduce_.default' has no DeviceMesh{{.*}} [dtensor-collective-without-mesh]
}

// Unknown: a module from elsewhere, a module partly distributed, items
// written through.
void unknownModule(NetImpl &net) {
  for (auto &item : net.named_parameters())
    meshguard::dist::all_reduce_({item.value()});
}

void partlyDistributed(const DeviceMesh &mesh) {
  Net model;
  meshguard::distribute_module(*model->encoder, mesh);
  meshguard::dist::all_reduce_(model->named_parameters().values());
}

void writtenThrough(const DeviceMesh &mesh) {
  Net model;
  auto params = model->named_parameters();
  for (auto &item : params)
    item.value() = meshguard::distribute_tensor(item.value(), mesh, {meshguard::Replicate{}});
  meshguard::dist::all_reduce_(params.values());
}

void rawGroup(c10d::ProcessGroup &pg, const DeviceMesh &mesh) {
  Net model;
  meshguard::distribute_module(*model, mesh);
  std::vector<at::Tensor> params = model->named_parameters().values();
  pg.allreduce(params)->wait();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: raw process-group collective 'c10d.allreduce_.default' is given a DTensor ('params'){{.*}} [dtensor-process-group-misuse]
}

void rawGroupPlain(c10d::ProcessGroup &pg) {
  Net model;
  std::vector<at::Tensor> params = model->named_parameters().values();
  pg.allreduce(params)->wait();
}

// An item bound by non-const reference over a named dict: reading through it
// keeps the dict's facts; writing the tensor through it does not.
void itemsByReference() {
  Net model;
  auto params = model->named_parameters();
  std::vector<at::Tensor> grads;
  for (auto &item : params) {
    item->mul_(2);
    grads.push_back(item.value().grad());
  }
  meshguard::dist::all_reduce_(grads);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: collective 'c10d.allreduce_.default' has no DeviceMesh{{.*}} [dtensor-collective-without-mesh]
  meshguard::dist::all_reduce_(params.values());
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: collective 'c10d.allreduce_.default' has no DeviceMesh{{.*}} [dtensor-collective-without-mesh]
}

void itemsRebound(const DeviceMesh &mesh, at::Tensor other) {
  Net model;
  auto params = model->named_parameters();
  for (auto &item : params)
    *item = meshguard::distribute_tensor(*item, mesh, {meshguard::Replicate{}});
  meshguard::dist::all_reduce_(params.values());
  auto more = model->named_parameters();
  for (auto &item : more)
    std::swap(item.value(), other);
  meshguard::dist::all_reduce_(more.values());
  auto again = model->named_parameters();
  for (auto &item : again) {
    at::Tensor &alias = item.value();
    alias = other;
  }
  meshguard::dist::all_reduce_(again.values());
}
