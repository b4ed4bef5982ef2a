// RUN: %check_meshguard %s dtensor-unverified-replicate %t -- -- -I%stubs

// A per-rank batch given to a module whose tensor-parallel style reads its
// plain input as a replica (ColwiseParallel by default, any style with
// input_layouts Replicate): parallel_forward wraps it by from_local
// without a check, so every rank computes with its own batch as if it were
// everyone's (pytorch/pytorch#119343: data parallelism mixed with
// ColwiseParallel, a "silent failure"). Silent when the style reads a
// shard, the input is a DTensor, or it is the same on every rank.

#include <meshguard/meshguard.h>
#include <meshguard/runtime/Parallelize.h>
#include <vector>

using namespace meshguard;

void setup(torch::nn::Linear &up, torch::nn::Linear &down,
           torch::nn::Linear &seq, const DeviceMesh &mesh) {
  parallelize_module(*up, mesh, ColwiseParallel{});
  parallelize_module(*down, mesh, RowwiseParallel{});
  ColwiseParallel sharded_in;
  sharded_in.input_layouts = Shard{0};
  parallelize_module(*seq, mesh, sharded_in);
}

at::Tensor step(torch::nn::Linear &up, torch::nn::Linear &down,
                torch::nn::Linear &seq, const DeviceMesh &mesh,
                const std::vector<at::Tensor> &batches) {
  at::Tensor x = batches[mesh.get_rank()];
  at::Tensor h = parallel_forward(up, x);
  // CHECK-NOTES: :[[@LINE-1]]:18: warning: 'parallel_forward' gives the module this rank's tensor, which its tensor-parallel style takes as a replica
  // CHECK-NOTES: :[[@LINE-2]]:39: note: this argument differs per rank
  // CHECK-NOTES: :[[@LINE-14]]:3: note: the module gets its style here; it reads a plain input as Replicate
  // CHECK-NOTES: :[[@LINE-5]]:26: note: the rank-dependent value comes from 'mesh.get_rank()' here
  // Negative twins: RowwiseParallel reads its input as Shard(-1); the
  // third module's style was given input_layouts Shard{0}.
  at::Tensor y = parallel_forward(down, x);
  at::Tensor z = parallel_forward(seq, x);
  return h + y + z;
}

// The style's input layout set to Replicate explicitly.
at::Tensor explicit_replicate(torch::nn::Linear &proj, const DeviceMesh &mesh,
                              const std::vector<at::Tensor> &parts) {
  RowwiseParallel style;
  style.input_layouts = Replicate{};
  parallelize_module(*proj, mesh, style);
  at::Tensor local = parts[mesh.get_rank()];
  return parallel_input(*proj, local);
  // CHECK-NOTES: :[[@LINE-1]]:10: warning: 'parallel_input' gives the module this rank's tensor
  // CHECK-NOTES: :[[@LINE-2]]:32: note: this argument differs per rank
  // CHECK-NOTES: :[[@LINE-5]]:3: note: the module gets its style here
  // CHECK-NOTES: :[[@LINE-5]]:28: note: the rank-dependent value comes from 'mesh.get_rank()' here
}

// Negative twins.

// The fix from #119343: the batch broadcast from rank 0 first.
at::Tensor broadcast_first(torch::nn::Linear &up, const DeviceMesh &mesh,
                           const std::vector<at::Tensor> &batches) {
  parallelize_module(*up, mesh, ColwiseParallel{});
  at::Tensor x = batches[mesh.get_rank()].clone();
  guarded::broadcast_({x}, mesh, 0);
  return parallel_forward(up, x);
}

// The same input on every rank.
at::Tensor same_input(torch::nn::Linear &up, const DeviceMesh &mesh,
                      const std::vector<at::Tensor> &batches) {
  parallelize_module(*up, mesh, ColwiseParallel{});
  return parallel_forward(up, batches[0]);
}

// A DTensor input: its placements say what it is.
at::Tensor dtensor_input(torch::nn::Linear &up, const DeviceMesh &mesh,
                         const std::vector<at::Tensor> &batches) {
  parallelize_module(*up, mesh, ColwiseParallel{});
  at::Tensor x = from_local(batches[mesh.get_rank()], mesh, {Shard{0}});
  return parallel_forward(up, x);
}

// A module that no style of this file reads as a replica.
at::Tensor no_style(torch::nn::Linear &other, const DeviceMesh &mesh,
                    const std::vector<at::Tensor> &batches) {
  return parallel_forward(other, batches[mesh.get_rank()]);
}
