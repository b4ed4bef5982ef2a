// RUN: %check_meshguard %s dtensor-mixed-meshes %t -- -- -I%stubs

// Meshes through modules (issue #44): a module's forward output is on its
// input's mesh, with its input's placements; a module whose parameters are
// on one mesh applied to an input on another, and two modules' outputs
// combined, are reported when the meshes surely differ. Meshes that arrive
// as two parameters of one function are not known to differ (the caller
// may pass one mesh twice): no finding.

#include <meshguard/meshguard.h>
#include <meshguard/runtime/Parallelize.h>

using meshguard::DeviceMesh;
using meshguard::Replicate;
using meshguard::Shard;

// The encoder lives on the 4-rank data-parallel mesh, the batch was put on
// the 2 x 2 grid by mistake.
at::Tensor encode(torch::nn::Linear &encoder, const at::Tensor &batch) {
  auto dp = meshguard::init_device_mesh("cpu", {4});
  auto grid = meshguard::init_device_mesh("cpu", {2, 2});
  meshguard::distribute_module(*encoder, dp);
  auto x = meshguard::distribute_tensor(batch, grid, {Shard{0}, Replicate{}});
  return encoder(x);
  // CHECK-NOTES: :[[@LINE-1]]:10: warning: the module's forward combines DTensors on different meshes: 'encoder' on mesh [4] and 'x' on mesh [2, 2]; the runtime throws 'DTensor operands live on different meshes' when the job gets here [dtensor-mixed-meshes]
  // CHECK-NOTES: :[[@LINE-4]]:3: note: 'encoder' is put on mesh [4] here
  // CHECK-NOTES: :[[@LINE-4]]:12: note: 'x' is put on mesh [2, 2] here
}

// Twin: the batch on the module's own mesh.
at::Tensor encode_same_mesh(torch::nn::Linear &encoder, const at::Tensor &batch) {
  auto dp = meshguard::init_device_mesh("cpu", {4});
  meshguard::distribute_module(*encoder, dp);
  auto x = meshguard::distribute_tensor(batch, dp, {Shard{0}});
  return encoder->forward(x);
}

// Two towers, each run on its own mesh's batch; their outputs summed.
at::Tensor two_towers(torch::nn::Linear &user, torch::nn::Linear &item,
                      const at::Tensor &u, const at::Tensor &i) {
  auto users = meshguard::init_device_mesh("cpu", {4});
  auto items = meshguard::init_device_mesh("cpu", {2, 2});
  auto ux = meshguard::distribute_tensor(u, users, {Shard{0}});
  auto ix = meshguard::distribute_tensor(i, items, {Shard{0}, Replicate{}});
  at::Tensor a = user(ux);
  at::Tensor b = item->forward(ix);
  return a * b;
  // CHECK-NOTES: :[[@LINE-1]]:12: warning: tensor op 'aten::mul' combines DTensors on different meshes: 'a' on mesh [4] and 'b' on mesh [2, 2]
  // CHECK-NOTES: :[[@LINE-6]]:13: note: 'a' is put on mesh [4] here
  // CHECK-NOTES: :[[@LINE-6]]:13: note: 'b' is put on mesh [2, 2] here
}

// Twin: both towers on one mesh.
at::Tensor two_towers_one_mesh(torch::nn::Linear &user, torch::nn::Linear &item,
                               const at::Tensor &u, const at::Tensor &i) {
  auto mesh = meshguard::init_device_mesh("cpu", {4});
  at::Tensor a = user(meshguard::distribute_tensor(u, mesh, {Shard{0}}));
  at::Tensor b = item(meshguard::distribute_tensor(i, mesh, {Shard{0}}));
  return a * b;
}

// Twin: two meshes given as parameters, with placements of one mesh dim
// each: the caller may pass the same mesh twice, so nothing is known.
at::Tensor from_two_parameters(const DeviceMesh &dense, const DeviceMesh &expert,
                               const at::Tensor &a, const at::Tensor &b) {
  auto x = meshguard::from_local(a, dense, {Shard{0}});
  auto y = meshguard::from_local(b, expert, {Shard{0}});
  return x + y;
}

// Two parameters whose placements spell different numbers of mesh dims:
// the meshes differ, whatever the caller passes.
at::Tensor from_two_parameters_2d(const DeviceMesh &dense, const DeviceMesh &grid,
                                  const at::Tensor &a, const at::Tensor &b) {
  auto x = meshguard::from_local(a, dense, {Shard{0}});
  auto y = meshguard::from_local(b, grid, {Shard{0}, Replicate{}});
  return x + y;
  // CHECK-NOTES: :[[@LINE-1]]:12: warning: tensor op 'aten::add' combines DTensors on different meshes: 'x' on a 1-D mesh and 'y' on a 2-D mesh
  // CHECK-NOTES: :[[@LINE-4]]:12: note: 'x' is put on a 1-D mesh here
  // CHECK-NOTES: :[[@LINE-4]]:12: note: 'y' is put on a 2-D mesh here
}
