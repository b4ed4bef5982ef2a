// RUN: %check_meshguard %s dtensor-partial-local-use %t -- -- -I%stubs

// Gradients of a module distributed in another function of the file (a
// trainer's setup), read by a logging or clipping helper that no call
// links to it (issue #44, the users' reports corpus): a module parameter
// that its own function does not distribute takes the placements that the
// one function of the file distributing a parameter of the same name and
// module type gives it (a declared heuristic:
// docs/checks/dtensor-partial-local-use.md).

#include <meshguard/meshguard.h>
#include <meshguard/runtime/Parallelize.h>

using meshguard::DeviceMesh;

void shard_model(torch::nn::Linear &model, const DeviceMesh &mesh) {
  meshguard::fully_shard(*model, mesh);
}

void parallelize(torch::nn::Linear &proj, const DeviceMesh &mesh) {
  meshguard::parallelize_module(*proj, mesh, meshguard::ColwiseParallel{});
}

// Each rank sums the squares of its own Shard(0) rows of the gradients.
double local_grad_norm(torch::nn::Linear &model) {
  at::Tensor total = torch::zeros({1});
  for (const at::Tensor &p : model->parameters())
    total = total + meshguard::to_local(p.grad()).pow(2).sum();
  return total.item<double>();
  // CHECK-NOTES: :[[@LINE-1]]:10: warning: 'item()' reads one rank's share of a DTensor that may be Partial
  // CHECK-NOTES: :[[@LINE-3]]:21: note: 'to_local()' gives each rank only its own shard; full_tensor() gives the whole tensor
  // CHECK-NOTES: :[[@LINE-4]]:21: note: this reduces only this rank's shard over its sharded dim: the result is one rank's part of the whole
  // CHECK-FIXES: total = total + meshguard::full_tensor(p.grad()).pow(2).sum();
}

// The sum of squares of a sharded gradient is Partial; its local value
// read as the whole.
double logged_norm(torch::nn::Linear &model) {
  at::Tensor squares = model->weight.grad().pow(2).sum();
  return meshguard::to_local(squares).item<double>();
  // CHECK-NOTES: :[[@LINE-1]]:10: warning: 'item()' reads one rank's share of a DTensor that may be Partial
  // CHECK-NOTES: :[[@LINE-2]]:10: note: 'to_local()' gives each rank only its own partial contribution
  // CHECK-NOTES: :[[@LINE-4]]:24: note: the DTensor may become Partial here
  // CHECK-FIXES: return meshguard::full_tensor(squares).item<double>();
}

// A ColwiseParallel Linear: its weight and bias are Shard(0).
double tp_grad_norm(torch::nn::Linear &proj) {
  at::Tensor total = torch::zeros({1});
  for (const at::Tensor &p : proj->parameters())
    total = total + meshguard::to_local(p.grad()).pow(2).sum();
  return total.item<double>();
  // CHECK-NOTES: :[[@LINE-1]]:10: warning: 'item()' reads one rank's share of a DTensor that may be Partial
  // CHECK-NOTES: :[[@LINE-3]]:21: note: 'to_local()' gives each rank only its own shard; full_tensor() gives the whole tensor
  // CHECK-NOTES: :[[@LINE-4]]:21: note: this reduces only this rank's shard over its sharded dim: the result is one rank's part of the whole
  // CHECK-FIXES: total = total + meshguard::full_tensor(p.grad()).pow(2).sum();
}

// Negative twins.

// The local sums all-reduced before the read.
double reduced_grad_norm(torch::nn::Linear &model, const DeviceMesh &mesh) {
  at::Tensor total = torch::zeros({1});
  for (const at::Tensor &p : model->parameters())
    total = total + meshguard::to_local(p.grad()).pow(2).sum();
  meshguard::guarded::all_reduce_({total}, mesh);
  return total.item<double>();
}

// The whole value read.
double full_norm(torch::nn::Linear &model) {
  at::Tensor squares = model->weight.grad().pow(2).sum();
  return meshguard::full_tensor(squares).item<double>();
}

// A module of another name: no function distributes it.
double plain_grad_norm(torch::nn::Linear &other) {
  at::Tensor total = torch::zeros({1});
  for (const at::Tensor &p : other->parameters())
    total = total + meshguard::to_local(p.grad()).pow(2).sum();
  return total.item<double>();
}

// The same name, another module type.
struct Head : torch::nn::Module {
  at::Tensor weight;
};
double head_norm(Head &model) {
  return meshguard::to_local(model.weight.pow(2).sum()).item<double>();
}

// Two functions distribute `layer` differently: which one ran is not
// known, so neither is taken.
void shard_layer(torch::nn::Linear &layer, const DeviceMesh &mesh) {
  meshguard::fully_shard(*layer, mesh);
}
void replicate_layer(torch::nn::Linear &layer, const DeviceMesh &mesh) {
  meshguard::distribute_module(*layer, mesh);
}
double layer_norm(torch::nn::Linear &layer) {
  at::Tensor squares = layer->weight.grad().pow(2).sum();
  return meshguard::to_local(squares).item<double>();
}
