// RUN: %check_meshguard %s dtensor-partial-local-use %t -- -- -I%stubs

// The shares users take through helpers, wrappers and gradients (issue #44):
// a helper that returns a Partial (mm of Shard(1) x Shard(0)), a helper
// that wraps to_local(), the gradients of fully_shard parameters summed by
// hand, a Partial loss's local tensor returned as "the loss".

#include <meshguard/meshguard.h>
#include <meshguard/runtime/Parallelize.h>
#include <ostream>

using meshguard::DeviceMesh;
using meshguard::Partial;
using meshguard::Replicate;
using meshguard::Shard;

std::ostream &operator<<(std::ostream &OS, const at::Tensor &T);

// Row-parallel projection: x is split on its features, w on its rows.
at::Tensor row_parallel_proj(const DeviceMesh &mesh, const at::Tensor &x_shard,
                             const at::Tensor &w_shard) {
  auto x = meshguard::from_local(x_shard, mesh, {Shard{1}});
  auto w = meshguard::from_local(w_shard, mesh, {Shard{0}});
  return at::mm(x, w);
}

double proj_norm(const DeviceMesh &mesh, const at::Tensor &x,
                 const at::Tensor &w) {
  at::Tensor out = meshguard::to_local(row_parallel_proj(mesh, x, w));
  return out.pow(2).sum().sqrt().item<double>();
  // CHECK-NOTES: :[[@LINE-1]]:10: warning: 'aten::pow' is applied to one rank's share of a DTensor that may be Partial
  // CHECK-NOTES: :[[@LINE-3]]:20: note: 'to_local()' gives each rank only its own partial contribution
  // CHECK-NOTES: :[[@LINE-9]]:10: note: the DTensor may become Partial here
  // CHECK-FIXES: at::Tensor out = meshguard::full_tensor(row_parallel_proj(mesh, x, w));
}

// Twin: the reduced value.
double proj_norm_full(const DeviceMesh &mesh, const at::Tensor &x,
                      const at::Tensor &w) {
  at::Tensor out = meshguard::full_tensor(row_parallel_proj(mesh, x, w));
  return out.pow(2).sum().sqrt().item<double>();
}

// A wrapper over to_local(), as training scripts write to log tensors.
at::Tensor local(const at::Tensor &t) { return meshguard::to_local(t); }

double mean_loss(const DeviceMesh &mesh, const at::Tensor &per_sample) {
  auto losses = meshguard::from_local(per_sample, mesh, {Shard{0}});
  return local(losses.mean()).item<double>();
  // CHECK-NOTES: :[[@LINE-1]]:10: warning: 'item()' reads one rank's share of a DTensor that may be Partial
  // CHECK-NOTES: :[[@LINE-2]]:10: note: 'to_local()' gives each rank only its own partial contribution
  // CHECK-NOTES: :[[@LINE-3]]:16: note: the DTensor may become Partial here
}

// Twin: the wrapper on a replicated loss is the value.
double mean_loss_replicated(const DeviceMesh &mesh, const at::Tensor &loss) {
  auto l = meshguard::distribute_tensor(loss, mesh, {Replicate{}});
  return local(l.mean()).item<double>();
}

// A hand-written gradient norm over fully_shard's parameters: each rank's
// gradient is its Shard(0) rows, so the squares summed are its own part.
double grad_norm(const DeviceMesh &mesh, torch::nn::Linear &fc) {
  meshguard::fully_shard(*fc, mesh);
  at::Tensor total = torch::zeros({});
  for (auto &p : fc->parameters()) {
    at::Tensor g = meshguard::to_local(p.grad());
    total += g.pow(2).sum();
  }
  return total.sqrt().item<double>();
  // CHECK-NOTES: :[[@LINE-1]]:10: warning: 'aten::sqrt' is applied to one rank's share of a DTensor that may be Partial
  // CHECK-NOTES: :[[@LINE-5]]:20: note: 'to_local()' gives each rank only its own shard; full_tensor() gives the whole tensor
  // CHECK-NOTES: :[[@LINE-5]]:14: note: this reduces only this rank's shard over its sharded dim: the result is one rank's part of the whole
  // CHECK-FIXES: at::Tensor g = meshguard::full_tensor(p.grad());
}

// Twin: the squares summed on each rank, then all-reduced.
double grad_norm_reduced(const DeviceMesh &mesh, torch::nn::Linear &fc) {
  meshguard::fully_shard(*fc, mesh);
  at::Tensor total = torch::zeros({});
  for (auto &p : fc->parameters()) {
    at::Tensor g = meshguard::to_local(p.grad());
    total += g.pow(2).sum();
  }
  meshguard::guarded::all_reduce_({total}, mesh);
  return total.sqrt().item<double>();
}

// Twin: a sum over the rows' own dim keeps rows: each rank's row sums.
double grad_row_sums(const DeviceMesh &mesh, torch::nn::Linear &fc) {
  meshguard::fully_shard(*fc, mesh);
  at::Tensor g = meshguard::to_local(fc->weight.grad());
  return g.sum({1}).sqrt().sum().item<double>();
}

// A loss computed per rank and declared Partial, whose local tensor is
// returned as "the loss" and logged by the caller.
at::Tensor compute_loss(const DeviceMesh &mesh, const at::Tensor &local_loss) {
  auto loss = meshguard::from_local(local_loss, mesh, {Partial{}});
  return meshguard::to_local(loss);
}

void log_step(std::ostream &os, const DeviceMesh &mesh, const at::Tensor &l) {
  at::Tensor loss = compute_loss(mesh, l);
  os << loss;
  // CHECK-NOTES: :[[@LINE-1]]:6: warning: this prints one rank's share of a DTensor that may be Partial
  // CHECK-NOTES: :[[@LINE-7]]:10: note: 'to_local()' gives each rank only its own partial contribution
  // CHECK-NOTES: :[[@LINE-9]]:15: note: the DTensor may become Partial here
  // CHECK-FIXES: return meshguard::full_tensor(loss);
}

// Twin: the helper returns the reduced loss.
at::Tensor compute_loss_full(const DeviceMesh &mesh, const at::Tensor &l) {
  auto loss = meshguard::from_local(l, mesh, {Partial{}});
  return meshguard::full_tensor(loss);
}

void log_step_full(std::ostream &os, const DeviceMesh &mesh, const at::Tensor &l) {
  os << compute_loss_full(mesh, l);
}
