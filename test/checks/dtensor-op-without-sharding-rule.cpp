// RUN: %check_meshguard %s dtensor-op-without-sharding-rule %t -- -- -I%stubs

// An op outside the runtime's sharding-rule table, on a DTensor that may be
// sharded or Partial, throws when the job reaches it. Fix: redistribute the
// operand to Replicate first (any op runs on all-Replicate operands).

#include <meshguard/meshguard.h>
#include <meshguard/runtime/Factories.h>
#include <meshguard/runtime/Parallelize.h>

using meshguard::DeviceMesh;
using meshguard::Partial;
using meshguard::Replicate;
using meshguard::Shard;

at::Tensor traceOfShards(const DeviceMesh &mesh, const at::Tensor &rows) {
  at::Tensor x = meshguard::from_local(rows, mesh, {Shard{0}});
  return x.trace();
  // CHECK-NOTES: :[[@LINE-1]]:12: warning: 'aten::trace' has no sharding rule in meshguard's runtime, and this call gives it a DTensor that may be sharded: the runtime throws 'no sharding rule for DTensor operands' when the job gets here; redistribute the operand to Replicate first [dtensor-op-without-sharding-rule]
  // CHECK-NOTES: :[[@LINE-3]]:18: note: the DTensor gets its sharded placements here
  // CHECK-FIXES: return meshguard::redistribute(x, {meshguard::Replicate{}}).trace();
}

// Twin: Replicate operands run any op.
at::Tensor traceReplicated(const DeviceMesh &mesh, const at::Tensor &t) {
  at::Tensor x = meshguard::distribute_tensor(t, mesh, {Replicate{}});
  return x.trace();
}

// Twin: an op with a rule (sum) on the same sharded value.
at::Tensor sumOfShards(const DeviceMesh &mesh, const at::Tensor &rows) {
  return meshguard::from_local(rows, mesh, {Shard{0}}).sum();
}

// A Partial operand on a 2-D mesh: one Replicate per mesh dim.
at::Tensor tracePartial(const DeviceMesh &mesh2d, const at::Tensor &a) {
  at::Tensor u = meshguard::from_local(a, mesh2d, {Replicate{}, Partial{}});
  return u.trace();
  // CHECK-NOTES: :[[@LINE-1]]:12: warning: 'aten::trace' has no sharding rule in meshguard's runtime, and this call gives it a DTensor that may be sharded or Partial
  // CHECK-NOTES: :[[@LINE-3]]:18: note: the DTensor gets its sharded placements here
  // CHECK-FIXES: return meshguard::redistribute(u, {meshguard::Replicate{}, meshguard::Replicate{}}).trace();
}

// Twins: ops the runtime shards since the coverage work run as they are:
// median of shards (gathered, as PyTorch does), dot of a Partial and a
// Shard (the Partial reduced first).
at::Tensor medianOfShards(const DeviceMesh &mesh, const at::Tensor &rows) {
  at::Tensor x = meshguard::from_local(rows, mesh, {Shard{0}});
  return x.median();
}

at::Tensor dotPartial(const DeviceMesh &mesh2d, const at::Tensor &a,
                      const at::Tensor &b) {
  at::Tensor u = meshguard::from_local(a, mesh2d, {Replicate{}, Partial{}});
  at::Tensor v = meshguard::from_local(b, mesh2d, {Shard{0}, Replicate{}});
  return at::dot(u, v);
}

// Through a sharded op result and a helper that returns it.
at::Tensor shardedProduct(const DeviceMesh &mesh, const at::Tensor &a) {
  return meshguard::from_local(a, mesh, {Shard{0}}) * 2;
}

at::Tensor traceOfHelper(const DeviceMesh &mesh, const at::Tensor &a) {
  at::Tensor p = shardedProduct(mesh, a);
  return p.trace();
  // CHECK-NOTES: :[[@LINE-1]]:12: warning: 'aten::trace' has no sharding rule
  // CHECK-NOTES: :[[@LINE-7]]:10: note: the DTensor gets its sharded placements here
  // CHECK-FIXES: return meshguard::redistribute(p, {meshguard::Replicate{}}).trace();
}

// Twin: placements not spelled at the call are unknown: no warning.
at::Tensor unknownPlacements(const DeviceMesh &mesh, const at::Tensor &a,
                             const meshguard::Placements &placements) {
  return meshguard::from_local(a, mesh, placements).trace();
}

// The DTensor factories set placements as from_local does.
at::Tensor traceOfFactory(const DeviceMesh &mesh) {
  at::Tensor r = meshguard::randn({8, 4}, mesh, {Shard{0}});
  return r.trace();
  // CHECK-NOTES: :[[@LINE-1]]:12: warning: 'aten::trace' has no sharding rule
  // CHECK-NOTES: :[[@LINE-3]]:18: note: the DTensor gets its sharded placements here
  // CHECK-FIXES: return meshguard::redistribute(r, {meshguard::Replicate{}}).trace();
}

// Parameters that fully_shard or a tensor-parallel style sharded.
at::Tensor traceOfShardedWeight(const DeviceMesh &mesh) {
  torch::nn::Linear fc(4, 4);
  at::Tensor before = fc->weight.trace(); // still a plain tensor here
  meshguard::fully_shard(*fc, mesh);
  return before + fc->weight.trace();
  // CHECK-NOTES: :[[@LINE-1]]:30: warning: 'aten::trace' has no sharding rule
  // CHECK-NOTES: :[[@LINE-3]]:3: note: the DTensor gets its sharded placements here
  // CHECK-FIXES: return before + meshguard::redistribute(fc->weight, {meshguard::Replicate{}}).trace();
}

at::Tensor rowwiseParameters(const DeviceMesh &mesh) {
  torch::nn::Linear fc(4, 4);
  meshguard::parallelize_module(*fc, mesh, meshguard::RowwiseParallel{});
  at::Tensor b = fc->bias.median(); // Rowwise keeps the bias Replicate
  return b + fc->weight.trace();
  // CHECK-NOTES: :[[@LINE-1]]:25: warning: 'aten::trace' has no sharding rule
  // CHECK-NOTES: :[[@LINE-4]]:3: note: the DTensor gets its sharded placements here
  // CHECK-FIXES: return b + meshguard::redistribute(fc->weight, {meshguard::Replicate{}}).trace();
}

// Twins: elementwise functions that got a rule with the coverage work
// (hypot, logaddexp: pointwise) run on sharded operands: no warning.
at::Tensor hypotOfShards(const DeviceMesh &mesh, const at::Tensor &a,
                         const at::Tensor &b) {
  at::Tensor x = meshguard::from_local(a, mesh, {Shard{0}});
  at::Tensor y = meshguard::from_local(b, mesh, {Shard{0}});
  return at::logaddexp(x.hypot(y), y);
}
