// RUN: %check_meshguard %s dtensor-rank-divergent-collective %t -- -- -I%stubs

// meshguard::rand/randn broadcast their seed from rank 0, so every rank must
// call them; the deterministic factories (ones, zeros, ...) do not communicate.

#include <meshguard/runtime/Factories.h>

using meshguard::DeviceMesh;
using meshguard::Shard;

void randomOnRankZero(const DeviceMesh &mesh) {
  at::Tensor noise;
  if (mesh.get_rank() == 0)
    noise = meshguard::randn({8, 4}, mesh, {Shard{0}});
  // CHECK-NOTES: :[[@LINE-1]]:13: warning: collective 'meshguard::randn' runs only on the ranks where a rank-dependent condition holds: the other ranks never call it and the job hangs [dtensor-rank-divergent-collective]
  // CHECK-NOTES: :[[@LINE-3]]:7: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-4]]:7: note: the rank-dependent value comes from 'mesh.get_rank()' here
}

// Negative twins: a deterministic factory on one rank is local work, and a
// random factory called by every rank is fine.
void onesOnRankZero(const DeviceMesh &mesh) {
  at::Tensor w;
  if (mesh.get_rank() == 0)
    w = meshguard::ones({8, 4}, mesh, {Shard{0}});
}

void randomEverywhere(const DeviceMesh &mesh) {
  at::Tensor noise = meshguard::rand({8, 4}, mesh, {Shard{0}});
  if (mesh.get_rank() == 0)
    noise.mul_(2);
}
