// RUN: %check_meshguard %s dtensor-mixed-tensor-op %t -- -- -I%stubs
// RUN: %cxx -fsyntax-only -std=c++17 -I%stubs %t.cpp

// In-place ops mixing a DTensor with a plain tensor throw at run time as the
// out-of-place ones do (aten.add_.Tensor, aten.mul_.Tensor,
// aten.copy_.default: "got mixed torch.Tensor and DTensor"), whichever side
// is the DTensor. The fixed file must compile.

#include <meshguard/meshguard.h>

using meshguard::DeviceMesh;
using meshguard::Replicate;

void compoundAssign(const DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  at::Tensor b = torch::zeros({4});
  w += b;
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: tensor op mixes the DTensor 'w' with the plain tensor 'b': the runtime throws 'mixed torch.Tensor and DTensor' [dtensor-mixed-tensor-op]
  // CHECK-NOTES: :[[@LINE-4]]:18: note: 'w' is a DTensor: it comes from distribute_tensor() here
  // CHECK-NOTES: :[[@LINE-4]]:18: note: 'b' is a plain tensor: it comes from torch::zeros() here
  // CHECK-FIXES: {{^}}  w += meshguard::from_local(b, *meshguard::mesh_of(w), {meshguard::Replicate{}});
  w -= b;
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: tensor op mixes the DTensor 'w' with the plain tensor 'b'
  // CHECK-NOTES: :[[@LINE-9]]:18: note: 'w' is a DTensor: it comes from distribute_tensor() here
  // CHECK-NOTES: :[[@LINE-9]]:18: note: 'b' is a plain tensor: it comes from torch::zeros() here
  // CHECK-FIXES: {{^}}  w -= meshguard::from_local(b, *meshguard::mesh_of(w), {meshguard::Replicate{}});
}

void inPlaceMethods(const DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  at::Tensor b = torch::zeros({4});
  w.add_(b);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: tensor op mixes the DTensor 'w' with the plain tensor 'b'
  // CHECK-NOTES: :[[@LINE-4]]:18: note: 'w' is a DTensor: it comes from distribute_tensor() here
  // CHECK-NOTES: :[[@LINE-4]]:18: note: 'b' is a plain tensor: it comes from torch::zeros() here
  // CHECK-FIXES: {{^}}  w.add_(meshguard::from_local(b, *meshguard::mesh_of(w), {meshguard::Replicate{}}));
  w.mul_(b);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: tensor op mixes the DTensor 'w' with the plain tensor 'b'
  // CHECK-NOTES: :[[@LINE-9]]:18: note: 'w' is a DTensor: it comes from distribute_tensor() here
  // CHECK-NOTES: :[[@LINE-9]]:18: note: 'b' is a plain tensor: it comes from torch::zeros() here
  // CHECK-FIXES: {{^}}  w.mul_(meshguard::from_local(b, *meshguard::mesh_of(w), {meshguard::Replicate{}}));
  w.copy_(b);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: tensor op mixes the DTensor 'w' with the plain tensor 'b'
  // CHECK-NOTES: :[[@LINE-14]]:18: note: 'w' is a DTensor: it comes from distribute_tensor() here
  // CHECK-NOTES: :[[@LINE-14]]:18: note: 'b' is a plain tensor: it comes from torch::zeros() here
  // CHECK-FIXES: {{^}}  w.copy_(meshguard::from_local(b, *meshguard::mesh_of(w), {meshguard::Replicate{}}));
}

// A plain tensor updated in place with a DTensor throws too, but wrapping it
// would update a temporary: no fix-it, a note says what to do.
void plainModifiedInPlace(const DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  at::Tensor p = torch::zeros({4});
  p += w;
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: tensor op mixes the DTensor 'w' with the plain tensor 'p'
  // CHECK-NOTES: :[[@LINE-4]]:18: note: 'w' is a DTensor: it comes from distribute_tensor() here
  // CHECK-NOTES: :[[@LINE-4]]:18: note: 'p' is a plain tensor: it comes from torch::zeros() here
  // CHECK-NOTES: :[[@LINE-4]]:3: note: 'p' is modified in place, so it cannot be wrapped (that would update a temporary): make it a DTensor where it is made
  // CHECK-FIXES: {{^}}  p += w;
  p.copy_(w);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: tensor op mixes the DTensor 'w' with the plain tensor 'p'
  // CHECK-NOTES: :[[@LINE-10]]:18: note: 'w' is a DTensor: it comes from distribute_tensor() here
  // CHECK-NOTES: :[[@LINE-10]]:18: note: 'p' is a plain tensor: it comes from torch::zeros() here
  // CHECK-NOTES: :[[@LINE-4]]:3: note: 'p' is modified in place, so it cannot be wrapped (that would update a temporary): make it a DTensor where it is made
  // CHECK-FIXES: {{^}}  p.copy_(w);
}

// Negative twins: scalars (the runtime accepts them), both DTensors, both
// plain, an unknown operand.
void inPlaceScalar(const DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  w *= 2;
  w += 1;
  w.mul_(2);
}

void inPlaceBothDTensors(const DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  at::Tensor b = meshguard::from_local(torch::zeros({4}), mesh, {Replicate{}});
  w += b;
  w.add_(b);
  w.copy_(b);
}

void inPlaceBothPlain(const DeviceMesh &mesh) {
  at::Tensor a = torch::randn({4});
  at::Tensor b = torch::zeros({4});
  a += b;
  a.mul_(b);
  at::Tensor d = meshguard::distribute_tensor(a, mesh, {Replicate{}});
}

void inPlaceUnknown(const DeviceMesh &mesh, const at::Tensor &p) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  w += p;
  w.copy_(p);
}
