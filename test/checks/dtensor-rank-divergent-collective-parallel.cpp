// RUN: %check_meshguard %s dtensor-rank-divergent-collective %t -- -- -I%stubs

// parallelize_module, fully_shard and the forwards that go with them
// communicate (parameters are broadcast and sharded, inputs and outputs
// redistributed), so every rank of the mesh must call them.

#include <meshguard/runtime/Parallelize.h>

using meshguard::DeviceMesh;

void parallelizeOnRankZero(const DeviceMesh &mesh, torch::nn::Linear &fc) {
  if (mesh.get_rank() == 0)
    meshguard::parallelize_module(*fc, mesh, meshguard::ColwiseParallel{});
  // CHECK-NOTES: :[[@LINE-1]]:5: warning: collective 'meshguard::parallelize_module' runs only on the ranks where a rank-dependent condition holds: the other ranks never call it and the job hangs [dtensor-rank-divergent-collective]
  // CHECK-NOTES: :[[@LINE-3]]:7: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-4]]:7: note: the rank-dependent value comes from 'mesh.get_rank()' here
}

at::Tensor forwardOnRankZero(const DeviceMesh &mesh, torch::nn::Linear &fc,
                             const at::Tensor &x) {
  at::Tensor y = x;
  if (mesh.get_rank() == 0)
    y = meshguard::parallel_forward(fc, x);
  // CHECK-NOTES: :[[@LINE-1]]:9: warning: collective 'meshguard::parallel_forward' runs only on the ranks where a rank-dependent condition holds: the other ranks never call it and the job hangs [dtensor-rank-divergent-collective]
  // CHECK-NOTES: :[[@LINE-3]]:7: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-4]]:7: note: the rank-dependent value comes from 'mesh.get_rank()' here
  return y;
}

void shardOnRankZero(const DeviceMesh &mesh, torch::nn::Linear &fc) {
  if (mesh.get_rank() == 0)
    meshguard::fully_shard(*fc, mesh);
  // CHECK-NOTES: :[[@LINE-1]]:5: warning: collective 'meshguard::fully_shard' runs only on the ranks where a rank-dependent condition holds: the other ranks never call it and the job hangs [dtensor-rank-divergent-collective]
  // CHECK-NOTES: :[[@LINE-3]]:7: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-4]]:7: note: the rank-dependent value comes from 'mesh.get_rank()' here
}

// Negative twins: every rank parallelizes, shards and runs the forward; only
// the logging of the result is rank 0's.
at::Tensor everyRank(const DeviceMesh &mesh, torch::nn::Linear &fc,
                     torch::nn::Linear &head, const at::Tensor &x) {
  meshguard::parallelize_module(*fc, mesh, meshguard::ColwiseParallel{});
  meshguard::fully_shard(*head, mesh);
  at::Tensor y = meshguard::fully_sharded_forward(head, meshguard::parallel_forward(fc, x));
  if (mesh.get_rank() == 0)
    y.mul_(1);
  return y;
}
