// RUN: %check_meshguard %s dtensor-mixed-tensor-op,dtensor-collective-without-mesh %t -- -- -I%stubs

// meshguard's DTensor factories (ones/zeros/empty/full/rand/randn with a mesh
// and placements) make DTensors; libtorch's factories of the same names make
// plain tensors. Mixing the two in one op is found; two factory DTensors are not.

#include <meshguard/runtime/Factories.h>

using meshguard::DeviceMesh;
using meshguard::Replicate;
using meshguard::Shard;

void factoryPlusPlain(const DeviceMesh &mesh) {
  at::Tensor w = meshguard::ones({4, 4}, mesh, {Shard{0}});
  at::Tensor bias = torch::ones({4, 4});
  at::Tensor y = w + bias;
  // CHECK-NOTES: :[[@LINE-1]]:18: warning: tensor op mixes the DTensor 'w' with the plain tensor 'bias': the runtime throws 'mixed torch.Tensor and DTensor' [dtensor-mixed-tensor-op]
  // CHECK-NOTES: :[[@LINE-4]]:18: note: 'w' is a DTensor: it comes from ones() here
  // CHECK-NOTES: :[[@LINE-4]]:21: note: 'bias' is a plain tensor: it comes from torch::ones() here
}

void everyFactoryMakesADTensor(const DeviceMesh &mesh) {
  at::Tensor a = meshguard::zeros({4}, mesh, {Replicate{}});
  at::Tensor b = meshguard::empty({4}, mesh, {Replicate{}});
  at::Tensor c = meshguard::full({4}, 2.0, mesh, {Replicate{}});
  at::Tensor d = meshguard::rand({4}, mesh, {Replicate{}});
  at::Tensor e = meshguard::randn({4}, mesh, {Replicate{}});
  at::Tensor plain = torch::zeros({4});
  at::Tensor y = a + plain;
  // CHECK-NOTES: :[[@LINE-1]]:18: warning: tensor op mixes the DTensor 'a' with the plain tensor 'plain'
  // CHECK-NOTES: :[[@LINE-8]]:18: note: 'a' is a DTensor: it comes from zeros() here
  // CHECK-NOTES: :[[@LINE-4]]:22: note: 'plain' is a plain tensor: it comes from torch::zeros() here
  // The mesh-inferred collective finds its mesh on every factory's result.
  meshguard::dist::all_reduce_({b, c, d, e});
}

// Negative twins: factory DTensors together, and a collective on them.
void factoriesTogether(const DeviceMesh &mesh) {
  at::Tensor w = meshguard::randn({4, 4}, mesh, {Shard{0}});
  at::Tensor b = meshguard::zeros({4, 4}, mesh, {Shard{0}});
  at::Tensor y = w + b;
  meshguard::dist::all_reduce_({y});
}

void plainCollective() {
  at::Tensor t = torch::ones({4});
  meshguard::dist::all_reduce_({t});
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: {{.*}}[dtensor-collective-without-mesh]
  // CHECK-NOTES: :[[@LINE-3]]:18: note: 't' is a plain tensor: it comes from torch::ones() here
  // CHECK-NOTES: :[[@LINE-3]]:3: note: no meshguard::DeviceMesh is in scope
}
