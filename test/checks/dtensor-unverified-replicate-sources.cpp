// RUN: %check_meshguard %s dtensor-unverified-replicate %t -- -- -I%stubs

// Per-rank data the rank analysis does not follow by itself (issue #44):
// rows unpacked by a structured binding from a helper given the rank, and
// data drawn from a generator seeded with the rank (manual_seed(base +
// rank), a Generator seeded with a 2-D mesh's local rank), wrapped as a
// replica without run_check.

#include <meshguard/meshguard.h>
#include <utility>

using meshguard::DeviceMesh;
using meshguard::Replicate;
using meshguard::Shard;

// Each rank's rows of the dataset, as training scripts slice them.
std::pair<at::Tensor, at::Tensor> make_shard(const at::Tensor &x, const at::Tensor &y,
                                             int64_t rank, int64_t world);

at::Tensor batch_of(const DeviceMesh &mesh, const at::Tensor &x, const at::Tensor &y) {
  const int64_t rank = mesh.get_rank();
  auto [x_local, y_local] = make_shard(x, y, rank, 4);
  return meshguard::from_local(x_local, mesh, {Replicate{}});
  // CHECK-NOTES: :[[@LINE-1]]:10: warning: 'from_local()' calls this rank's tensor a replica (every placement Replicate) without run_check, but the tensor differs per rank
  // CHECK-NOTES: :[[@LINE-2]]:32: note: this local tensor differs per rank
  // CHECK-NOTES: :[[@LINE-4]]:46: note: this argument depends on the rank
  // CHECK-NOTES: :[[@LINE-6]]:24: note: the rank-dependent value comes from 'mesh.get_rank()' here
  // CHECK-FIXES: return meshguard::from_local(x_local, mesh, {Replicate{}}, /*run_check=*/true);
}

// Twin: the rows wrapped as what they are, Shard(0).
at::Tensor batch_of_sharded(const DeviceMesh &mesh, const at::Tensor &x,
                            const at::Tensor &y) {
  auto [x_local, y_local] = make_shard(x, y, mesh.get_rank(), 4);
  return meshguard::from_local(x_local, mesh, {Shard{0}});
}

// Twin: a structured binding of uniform values.
at::Tensor batch_of_all(const DeviceMesh &mesh, const at::Tensor &x, const at::Tensor &y) {
  auto [x_all, y_all] = make_shard(x, y, 0, 1);
  return meshguard::from_local(x_all, mesh, {Replicate{}});
}

// Dropout-style noise drawn after seeding with the rank, called a replica.
at::Tensor noise(const DeviceMesh &mesh, int64_t base) {
  at::manual_seed(base + mesh.get_rank());
  at::Tensor eps = at::randn({16});
  return meshguard::from_local(eps, mesh, {Replicate{}});
  // CHECK-NOTES: :[[@LINE-1]]:10: warning: 'from_local()' calls this rank's tensor a replica
  // CHECK-NOTES: :[[@LINE-2]]:32: note: this local tensor differs per rank
  // CHECK-NOTES: :[[@LINE-5]]:3: note: the default generator is seeded here with a value that differs per rank
  // CHECK-NOTES: :[[@LINE-6]]:26: note: the rank-dependent value comes from 'mesh.get_rank()' here
  // CHECK-FIXES: return meshguard::from_local(eps, mesh, {Replicate{}}, /*run_check=*/true);
}

// Twin: one seed on every rank draws the same numbers.
at::Tensor noise_same_seed(const DeviceMesh &mesh, int64_t base) {
  at::manual_seed(base);
  at::Tensor eps = at::randn({16});
  return meshguard::from_local(eps, mesh, {Replicate{}});
}

// A generator seeded with the local rank on the 2-D mesh's data dim (the
// rank analysis follows the generator's value itself).
at::Tensor init_weights(const DeviceMesh &mesh2d) {
  at::Generator gen = at::detail::createCPUGenerator(mesh2d.get_local_rank(0));
  at::Tensor w = at::randn({8, 8}, gen);
  return meshguard::from_local(w, mesh2d, {Replicate{}, Replicate{}});
  // CHECK-NOTES: :[[@LINE-1]]:10: warning: 'from_local()' calls this rank's tensor a replica
  // CHECK-NOTES: :[[@LINE-2]]:32: note: this local tensor differs per rank
  // CHECK-NOTES: :[[@LINE-5]]:54: note: the rank-dependent value comes from 'mesh2d.get_local_rank(0)' here
  // CHECK-FIXES: return meshguard::from_local(w, mesh2d, {Replicate{}, Replicate{}}, /*run_check=*/true);
}

// Twin: a generator with a fixed seed.
at::Tensor init_weights_fixed(const DeviceMesh &mesh2d) {
  at::Generator gen = at::detail::createCPUGenerator(1234);
  at::Tensor w = at::randn({8, 8}, gen);
  return meshguard::from_local(w, mesh2d, {Replicate{}, Replicate{}});
}
