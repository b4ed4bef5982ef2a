// RUN: %check_meshguard %s dtensor-unverified-replicate %t -- -- -I%stubs

// from_local(x, mesh, {Replicate{}}) of a tensor that differs per rank,
// without run_check: every rank takes its own tensor for the replica.
// Fix: run_check=true (the runtime verifies the replicas), or Shard.

#include <meshguard/meshguard.h>

using meshguard::DeviceMesh;
using meshguard::Replicate;
using meshguard::Shard;

at::Tensor rowsOfThisRank(const DeviceMesh &mesh, const at::Tensor &data) {
  int64_t rank = mesh.get_rank();
  at::Tensor mine = data * (rank + 1);
  return meshguard::from_local(mine, mesh, {Replicate{}});
  // CHECK-NOTES: :[[@LINE-1]]:10: warning: 'from_local()' calls this rank's tensor a replica (every placement Replicate) without run_check, but the tensor differs per rank: every rank takes its own tensor for the value, and what is computed from it is wrong with no error; give the placement it has (Shard), or pass run_check=true to have the runtime verify it [dtensor-unverified-replicate]
  // CHECK-NOTES: :[[@LINE-2]]:32: note: this local tensor differs per rank
  // CHECK-NOTES: :[[@LINE-5]]:18: note: the rank-dependent value comes from 'mesh.get_rank()' here
  // CHECK-FIXES: return meshguard::from_local(mine, mesh, {Replicate{}}, /*run_check=*/true);
}

// An explicit run_check=false is no verification either.
at::Tensor explicitFalse(const DeviceMesh &mesh, const at::Tensor &data) {
  at::Tensor mine = data * mesh.get_rank();
  return meshguard::from_local(mine, mesh, {Replicate{}}, false);
  // CHECK-NOTES: :[[@LINE-1]]:10: warning: 'from_local()' calls this rank's tensor a replica
  // CHECK-NOTES: :[[@LINE-2]]:32: note: this local tensor differs per rank
  // CHECK-NOTES: :[[@LINE-4]]:28: note: the rank-dependent value comes from 'mesh.get_rank()' here
  // CHECK-FIXES: return meshguard::from_local(mine, mesh, {Replicate{}}, true);
}

// Twins: verified, sharded, uniform, or made uniform by an all-reduce.
at::Tensor verified(const DeviceMesh &mesh, const at::Tensor &data) {
  at::Tensor mine = data * mesh.get_rank();
  return meshguard::from_local(mine, mesh, {Replicate{}}, /*run_check=*/true);
}

at::Tensor sharded(const DeviceMesh &mesh, const at::Tensor &data) {
  at::Tensor mine = data * mesh.get_rank();
  return meshguard::from_local(mine, mesh, {Shard{0}});
}

at::Tensor uniform(const DeviceMesh &mesh, const at::Tensor &data) {
  return meshguard::from_local(data * 2, mesh, {Replicate{}});
}

at::Tensor reducedFirst(const DeviceMesh &mesh, const at::Tensor &data) {
  at::Tensor mine = data * mesh.get_rank();
  meshguard::guarded::all_reduce_({mine}, mesh);
  return meshguard::from_local(mine, mesh, {Replicate{}});
}

// A rank-dependent value through a helper's result.
at::Tensor slice(const at::Tensor &data, int64_t rank) { return data * rank; }

at::Tensor throughHelper(const DeviceMesh &mesh, const at::Tensor &data) {
  at::Tensor part = slice(data, mesh.get_rank());
  return meshguard::from_local(part, mesh, {Replicate{}});
  // CHECK-NOTES: :[[@LINE-1]]:10: warning: 'from_local()' calls this rank's tensor a replica
  // CHECK-NOTES: :[[@LINE-2]]:32: note: this local tensor differs per rank
  // CHECK-NOTES: :[[@LINE-4]]:21: note: the rank-dependent value comes from 'slice(data, mesh.get_rank())' here
  // CHECK-FIXES: return meshguard::from_local(part, mesh, {Replicate{}}, /*run_check=*/true);
}

// A helper that wraps its parameter as a replica is right for a uniform
// argument: the finding is at the call that gives it a rank-dependent one
// (also through a second helper), with the from_local inside as a note; no
// fix-it (the helper is right for its other callers).
at::Tensor wrapReplica(const at::Tensor &x, const DeviceMesh &mesh) {
  return meshguard::from_local(x, mesh, {Replicate{}});
}

at::Tensor wrapScaled(const DeviceMesh &mesh, const at::Tensor &y) {
  at::Tensor z = y * 2;
  return wrapReplica(z, mesh);
}

at::Tensor wrappedPerRank(const DeviceMesh &mesh, const at::Tensor &data) {
  at::Tensor rows = data * mesh.get_rank();
  at::Tensor a = wrapReplica(rows, mesh);
  // CHECK-NOTES: :[[@LINE-1]]:18: warning: call to 'wrapReplica' makes this rank's tensor a replica inside it (from_local() with every placement Replicate, without run_check), but the argument differs per rank: every rank takes its own tensor for the value, and what is computed from it is wrong with no error [dtensor-unverified-replicate]
  // CHECK-NOTES: :[[@LINE-12]]:10: note: inside 'wrapReplica', the tensor is called a replica here, without run_check
  // CHECK-NOTES: :[[@LINE-3]]:30: note: this argument differs per rank
  // CHECK-NOTES: :[[@LINE-5]]:28: note: the rank-dependent value comes from 'mesh.get_rank()' here
  at::Tensor b = wrapScaled(mesh, rows);
  // CHECK-NOTES: :[[@LINE-1]]:18: warning: call to 'wrapScaled' makes this rank's tensor a replica inside it
  // CHECK-NOTES: :[[@LINE-17]]:10: note: inside 'wrapReplica', the tensor is called a replica here, without run_check
  // CHECK-NOTES: :[[@LINE-3]]:35: note: this argument differs per rank
  // CHECK-NOTES: :[[@LINE-10]]:28: note: the rank-dependent value comes from 'mesh.get_rank()' here
  return a + b;
}

// Twins: a uniform argument; the helper's parameter that is not wrapped
// (the mesh).
at::Tensor wrappedUniform(const DeviceMesh &mesh, const at::Tensor &data) {
  at::Tensor rows = data * mesh.get_rank();
  meshguard::guarded::all_reduce_({rows}, mesh);
  return wrapReplica(rows, mesh) + wrapScaled(mesh, data);
}
