// RUN: %check_meshguard %s dtensor-partial-local-use %t -- -- -I%stubs

// A helper that takes its argument's local tensor (`is_dtensor(g) ?
// to_local(g) : g`) and returns the sum of its squares (issue #44, the
// users' reports corpus: VeOmni's grad-norm helper under tensor
// parallelism): given a sharded gradient, each call gives one rank's part
// of the whole, and the total read with item() is this rank's alone.

#include <meshguard/meshguard.h>
#include <meshguard/runtime/Parallelize.h>

using meshguard::DeviceMesh;
using meshguard::Partial;
using meshguard::Shard;

at::Tensor grad_squares(const at::Tensor &grad) {
  at::Tensor g = meshguard::is_dtensor(grad) ? meshguard::to_local(grad) : grad;
  return g.pow(2).sum();
}

double tp_norm(torch::nn::Linear &proj, const DeviceMesh &mesh) {
  meshguard::parallelize_module(*proj, mesh, meshguard::ColwiseParallel{});
  at::Tensor total = torch::zeros({1});
  for (const at::Tensor &p : proj->parameters())
    total = total + grad_squares(p.grad());
  return total.item<double>();
  // CHECK-NOTES: :[[@LINE-1]]:10: warning: 'item()' reads one rank's share of a DTensor that may be Partial
  // CHECK-NOTES: :[[@LINE-3]]:21: note: 'to_local()' gives each rank only its own shard; full_tensor() gives the whole tensor
  // CHECK-NOTES: :[[@LINE-4]]:21: note: this reduces only this rank's shard over its sharded dim: the result is one rank's part of the whole
}

// A helper that sums its argument's local tensor as it is.
at::Tensor local_sum(const at::Tensor &t) { return meshguard::to_local(t).sum(); }

double sharded_sum(const DeviceMesh &mesh, const at::Tensor &x) {
  auto d = meshguard::distribute_tensor(x, mesh, {Shard{0}});
  return local_sum(d).item<double>();
  // CHECK-NOTES: :[[@LINE-1]]:10: warning: 'item()' reads one rank's share of a DTensor that may be Partial
  // CHECK-NOTES: :[[@LINE-2]]:10: note: 'to_local()' gives each rank only its own shard; full_tensor() gives the whole tensor
  // CHECK-NOTES: :[[@LINE-3]]:10: note: this reduces only this rank's shard over its sharded dim: the result is one rank's part of the whole
}

// A Partial's share summed is still one rank's share.
double partial_sum(const DeviceMesh &mesh, const at::Tensor &x) {
  auto d = meshguard::from_local(x, mesh, {Partial{}});
  return local_sum(d).item<double>();
  // CHECK-NOTES: :[[@LINE-1]]:10: warning: 'item()' reads one rank's share of a DTensor that may be Partial
  // CHECK-NOTES: :[[@LINE-2]]:10: note: 'to_local()' gives each rank only its own partial contribution
  // CHECK-NOTES: :[[@LINE-4]]:12: note: the DTensor may become Partial here
}

// Negative twins.

// The helper reads the whole gradient.
at::Tensor full_squares(const at::Tensor &grad) {
  at::Tensor g = meshguard::is_dtensor(grad) ? meshguard::full_tensor(grad) : grad;
  return g.pow(2).sum();
}

double tp_norm_full(torch::nn::Linear &proj, const DeviceMesh &mesh) {
  meshguard::parallelize_module(*proj, mesh, meshguard::ColwiseParallel{});
  at::Tensor total = torch::zeros({1});
  for (const at::Tensor &p : proj->parameters())
    total = total + full_squares(p.grad());
  return total.item<double>();
}

// Plain gradients: the local tensor is the tensor.
double plain_norm(torch::nn::Linear &other) {
  at::Tensor total = torch::zeros({1});
  for (const at::Tensor &p : other->parameters())
    total = total + grad_squares(p.grad());
  return total.item<double>();
}

// Replicated gradients: each rank's local tensor is the whole.
double replicated_norm(torch::nn::Linear &proj, const DeviceMesh &mesh) {
  meshguard::distribute_module(*proj, mesh);
  at::Tensor total = torch::zeros({1});
  for (const at::Tensor &p : proj->parameters())
    total = total + grad_squares(p.grad());
  return total.item<double>();
}
