// RUN: %check_meshguard %s dtensor-mixed-tensor-op %t -- -- -I%stubs

// A tensor op called through a tensor pointer (`p->add(x)`, `p->add_(x)`),
// in the function itself or inside a helper given the pointer: its object
// is what the pointer points to, as in `(*p).add(x)`.
#include <meshguard/meshguard.h>
#include <torch/torch.h>

using meshguard::DeviceMesh;
using meshguard::Replicate;

void direct(const DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  at::Tensor noise = torch::randn({4});
  at::Tensor *p = &w;
  at::Tensor a = p->add(noise);
  // CHECK-NOTES: :[[@LINE-1]]:18: warning: tensor op mixes the DTensor '*p' with the plain tensor 'noise': the runtime throws 'mixed torch.Tensor and DTensor' [dtensor-mixed-tensor-op]
  // CHECK-NOTES: :[[@LINE-5]]:18: note: '*p' is a DTensor: it comes from distribute_tensor() here
  // CHECK-NOTES: :[[@LINE-5]]:22: note: 'noise' is a plain tensor: it comes from torch::randn() here
  // CHECK-FIXES: {{^}}  at::Tensor a = p->add(meshguard::from_local(noise, *meshguard::mesh_of(*p), {meshguard::Replicate{}}));{{$}}
  p->add_(noise);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: tensor op mixes the DTensor '*p' with the plain tensor 'noise'
  // CHECK-NOTES: :[[@LINE-10]]:18: note: '*p' is a DTensor: it comes from distribute_tensor() here
  // CHECK-NOTES: :[[@LINE-10]]:22: note: 'noise' is a plain tensor: it comes from torch::randn() here
  // CHECK-FIXES: {{^}}  p->add_(meshguard::from_local(noise, *meshguard::mesh_of(*p), {meshguard::Replicate{}}));{{$}}
  // A plain tensor through a pointer: reported, but no fix-it wraps a
  // pointer.
  at::Tensor *q = &noise;
  at::Tensor b = q->mul(w);
  // CHECK-NOTES: :[[@LINE-1]]:18: warning: tensor op mixes the DTensor 'w' with the plain tensor '*q'
  // CHECK-NOTES: :[[@LINE-18]]:18: note: 'w' is a DTensor: it comes from distribute_tensor() here
  // CHECK-NOTES: :[[@LINE-18]]:22: note: '*q' is a plain tensor: it comes from torch::randn() here
  // CHECK-FIXES: {{^}}  at::Tensor b = q->mul(w);{{$}}
  // Negative twins: both plain, both DTensors.
  at::Tensor other = torch::zeros({4});
  at::Tensor c = q->add(other);
  at::Tensor d = p->add(w);
}

// Inside a helper given the pointer.
at::Tensor addNoise(const at::Tensor *t) {
  at::Tensor noise = torch::randn({4});
  return t->add(noise);
}

void throughHelper(const DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  at::Tensor a = addNoise(&w);
  // CHECK-NOTES: :[[@LINE-1]]:18: warning: call to 'addNoise' makes a tensor op inside it mix the DTensor 'w' with a plain tensor: the runtime throws 'mixed torch.Tensor and DTensor' [dtensor-mixed-tensor-op]
  // CHECK-NOTES: :43:10: note: the tensor op is here; its other operand is a plain tensor
  // Negative twin: a plain tensor.
  at::Tensor p = torch::zeros({4});
  at::Tensor b = addNoise(&p);
}
