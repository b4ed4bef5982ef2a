// RUN: %check_meshguard %s dtensor-mixed-tensor-op %t -- -- -I%stubs
// RUN: %cxx -fsyntax-only -std=c++17 -I%stubs %t.cpp

// A tensor list mixing a DTensor and a plain tensor (at::cat, torch::cat,
// torch::stack) throws at run time: "aten.cat.default got mixed torch.Tensor
// and DTensor". Fix: wrap the plain elements as Replicate DTensors.

#include <meshguard/meshguard.h>

using meshguard::DeviceMesh;
using meshguard::Replicate;

void atCat(const DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  at::Tensor p = torch::zeros({4});
  at::Tensor c = at::cat({w, p});
  // CHECK-NOTES: :[[@LINE-1]]:18: warning: tensor op mixes the DTensor 'w' with the plain tensor 'p': the runtime throws 'mixed torch.Tensor and DTensor' [dtensor-mixed-tensor-op]
  // CHECK-NOTES: :[[@LINE-4]]:18: note: 'w' is a DTensor: it comes from distribute_tensor() here
  // CHECK-NOTES: :[[@LINE-4]]:18: note: 'p' is a plain tensor: it comes from torch::zeros() here
  // CHECK-FIXES: {{^}}  at::Tensor c = at::cat({w, meshguard::from_local(p, *meshguard::mesh_of(w), {meshguard::Replicate{}})});
}

void torchCatPlainFirst(const DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  at::Tensor p = torch::zeros({4});
  at::Tensor c = torch::cat({p, w}, 0);
  // CHECK-NOTES: :[[@LINE-1]]:18: warning: tensor op mixes the DTensor 'w' with the plain tensor 'p'
  // CHECK-NOTES: :[[@LINE-4]]:18: note: 'w' is a DTensor: it comes from distribute_tensor() here
  // CHECK-NOTES: :[[@LINE-4]]:18: note: 'p' is a plain tensor: it comes from torch::zeros() here
  // CHECK-FIXES: {{^}}  at::Tensor c = torch::cat({meshguard::from_local(p, *meshguard::mesh_of(w), {meshguard::Replicate{}}), w}, 0);
}

// Every plain element is wrapped; the mesh comes from the DTensor element.
void torchStackTwoPlain(const DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  at::Tensor p = torch::zeros({4});
  at::Tensor s = torch::stack({w, p, torch::ones({4})});
  // CHECK-NOTES: :[[@LINE-1]]:18: warning: tensor op mixes the DTensor 'w' with the plain tensor 'p'
  // CHECK-NOTES: :[[@LINE-4]]:18: note: 'w' is a DTensor: it comes from distribute_tensor() here
  // CHECK-NOTES: :[[@LINE-4]]:18: note: 'p' is a plain tensor: it comes from torch::zeros() here
  // CHECK-NOTES: :[[@LINE-4]]:38: note: 'torch::ones({4})' is a plain tensor: it comes from torch::ones() here
  // CHECK-FIXES: {{^}}  at::Tensor s = torch::stack({w, meshguard::from_local(p, *meshguard::mesh_of(w), {meshguard::Replicate{}}), meshguard::from_local(torch::ones({4}), *meshguard::mesh_of(w), {meshguard::Replicate{}})});
}

// A DTensor element that is no variable: the mesh in scope is used.
void meshInScope(const DeviceMesh &mesh) {
  at::Tensor p = torch::zeros({4});
  at::Tensor s = at::stack({meshguard::from_local(p, mesh, {Replicate{}}), p});
  // CHECK-NOTES: :[[@LINE-1]]:18: warning: tensor op mixes the DTensor 'meshguard::from_local(p, mesh, {Replicate{}})' with the plain tensor 'p'
  // CHECK-NOTES: :[[@LINE-2]]:29: note: 'meshguard::from_local(p, mesh, {Replicate{}})' is a DTensor: it comes from from_local() here
  // CHECK-NOTES: :[[@LINE-4]]:18: note: 'p' is a plain tensor: it comes from torch::zeros() here
  // CHECK-FIXES: {{^}}  at::Tensor s = at::stack({meshguard::from_local(p, mesh, {Replicate{}}), meshguard::from_local(p, mesh, {meshguard::Replicate{}})});
}

// Negative twins: all DTensors, all plain, an unknown element, a named vector
// (not looked into).
void catAllDTensors(const DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  at::Tensor v = meshguard::from_local(torch::zeros({4}), mesh, {Replicate{}});
  at::Tensor c = at::cat({w, v});
  at::Tensor s = torch::stack({w, w});
}

void catAllPlain(const DeviceMesh &mesh) {
  at::Tensor a = torch::zeros({4});
  at::Tensor c = torch::cat({a, torch::ones({4})});
  at::Tensor d = meshguard::distribute_tensor(c, mesh, {Replicate{}});
}

void catUnknown(const DeviceMesh &mesh, const at::Tensor &u) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  at::Tensor c = at::cat({w, u});
}
