// RUN: %check_meshguard %s dtensor-unverified-replicate %t -- -- -I%stubs

// One rank's shard of a DTensor (its to_local()) wrapped again as a replica
// (issue #44): each rank holds other rows, so the claim is false whatever
// the rank analysis says about where the rows came from.

#include <meshguard/meshguard.h>

using meshguard::DeviceMesh;
using meshguard::Partial;
using meshguard::Replicate;
using meshguard::Shard;

// The embeddings were row-sharded for the lookup; the local rows are then
// handed to a replicated head as if they were the whole table.
at::Tensor rewrap(const DeviceMesh &mesh, const at::Tensor &table) {
  auto emb = meshguard::distribute_tensor(table, mesh, {Shard{0}});
  at::Tensor rows = meshguard::to_local(emb);
  return meshguard::from_local(rows, mesh, {Replicate{}});
  // CHECK-NOTES: :[[@LINE-1]]:10: warning: 'from_local()' calls this rank's tensor a replica (every placement Replicate) without run_check, but the tensor differs per rank
  // CHECK-NOTES: :[[@LINE-2]]:32: note: this is one rank's shard of a DTensor (to_local()), not the whole value
  // CHECK-NOTES: :[[@LINE-5]]:14: note: the DTensor gets its sharded placements here
  // CHECK-FIXES: return meshguard::from_local(rows, mesh, {Replicate{}}, /*run_check=*/true);
}

// A Partial value's share called a replica.
at::Tensor rewrap_partial(const DeviceMesh &mesh, const at::Tensor &x) {
  auto sums = meshguard::from_local(x, mesh, {Shard{0}}).sum();
  return meshguard::from_local(meshguard::to_local(sums), mesh, {Replicate{}}, false);
  // CHECK-NOTES: :[[@LINE-1]]:10: warning: 'from_local()' calls this rank's tensor a replica
  // CHECK-NOTES: :[[@LINE-2]]:32: note: this is one rank's partial contribution of a DTensor (to_local()), not the whole value
  // CHECK-NOTES: :[[@LINE-4]]:15: note: the DTensor may become Partial here
  // CHECK-FIXES: return meshguard::from_local(meshguard::to_local(sums), mesh, {Replicate{}}, true);
}

// Twin: the shard wrapped back with its own placement.
at::Tensor rewrap_as_shard(const DeviceMesh &mesh, const at::Tensor &table) {
  auto emb = meshguard::distribute_tensor(table, mesh, {Shard{0}});
  at::Tensor rows = meshguard::to_local(emb) * 2;
  return meshguard::from_local(rows, mesh, {Shard{0}});
}

// Twin: a replica's local tensor is the whole value on every rank.
at::Tensor rewrap_replica(const DeviceMesh &mesh, const at::Tensor &w) {
  auto r = meshguard::distribute_tensor(w, mesh, {Replicate{}});
  return meshguard::from_local(meshguard::to_local(r), mesh, {Replicate{}});
}

// Twin: the rows' own sums (over the unsharded dim) are still rows, and
// the claim is verified at run time.
at::Tensor rewrap_checked(const DeviceMesh &mesh, const at::Tensor &table) {
  auto emb = meshguard::distribute_tensor(table, mesh, {Shard{0}});
  at::Tensor rows = meshguard::to_local(emb);
  return meshguard::from_local(rows, mesh, {Replicate{}}, /*run_check=*/true);
}
