// RUN: %check_meshguard %s dtensor-mixed-tensor-op %t -- -- -I%stubs

// An ATen op mixing a DTensor with a plain tensor throws at run time.
// Fix: wrap the plain operand as a Replicate DTensor on the DTensor's mesh.

#include <meshguard/meshguard.h>

using meshguard::DeviceMesh;
using meshguard::Replicate;

void addPlain(const DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  at::Tensor bias = torch::zeros({4});
  at::Tensor y = w + bias;
  // CHECK-NOTES: :[[@LINE-1]]:18: warning: tensor op mixes the DTensor 'w' with the plain tensor 'bias': the runtime throws 'mixed torch.Tensor and DTensor' [dtensor-mixed-tensor-op]
  // CHECK-NOTES: :[[@LINE-4]]:18: note: 'w' is a DTensor: it comes from distribute_tensor() here
  // CHECK-NOTES: :[[@LINE-4]]:21: note: 'bias' is a plain tensor: it comes from torch::zeros() here
  // CHECK-FIXES: at::Tensor y = w + meshguard::from_local(bias, *meshguard::mesh_of(w), {meshguard::Replicate{}});
}

void methodWithLocal(const DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  at::Tensor local = meshguard::to_local(w);
  at::Tensor z = w.mul(local);
  // CHECK-NOTES: :[[@LINE-1]]:18: warning: tensor op mixes the DTensor 'w' with the plain tensor 'local'
  // CHECK-NOTES: :[[@LINE-4]]:18: note: 'w' is a DTensor: it comes from distribute_tensor() here
  // CHECK-NOTES: :[[@LINE-4]]:22: note: 'local' is a plain tensor: it comes from to_local() here
  // CHECK-FIXES: at::Tensor z = w.mul(meshguard::from_local(local, *meshguard::mesh_of(w), {meshguard::Replicate{}}));
}

void freeFunction(const DeviceMesh &mesh) {
  at::Tensor a = torch::ones({4, 4});
  at::Tensor m = at::matmul(a, meshguard::distribute_tensor(a, mesh, {Replicate{}}));
  // CHECK-NOTES: :[[@LINE-1]]:18: warning: tensor op mixes the DTensor 'meshguard::distribute_tensor(a, mesh, {Replic...' with the plain tensor 'a'
  // CHECK-NOTES: :[[@LINE-2]]:32: note: 'meshguard::distribute_tensor(a, mesh, {Replic...' is a DTensor: it comes from distribute_tensor() here
  // CHECK-NOTES: :[[@LINE-4]]:18: note: 'a' is a plain tensor: it comes from torch::ones() here
  // CHECK-FIXES: at::Tensor m = at::matmul(meshguard::from_local(a, mesh, {meshguard::Replicate{}}), meshguard::distribute_tensor(a, mesh, {Replicate{}}));
}

// Negative twins.
void bothDTensors(const DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  at::Tensor b = meshguard::from_local(torch::zeros({4}), mesh, {Replicate{}});
  at::Tensor y = w + b;
}

void bothPlain(const DeviceMesh &mesh) {
  at::Tensor a = torch::randn({4});
  at::Tensor y = a + torch::zeros({4});
  at::Tensor d = meshguard::distribute_tensor(y, mesh, {Replicate{}});
}

void scalarOperand(const DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  at::Tensor y = w * 2;
}

void unknownOperand(const DeviceMesh &mesh, const at::Tensor &p) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  at::Tensor y = w + p;
}

// A plain tensor of one element is a scalar to the runtime (as to PyTorch's
// DTensor): mixing it in is fine.
void scalarLikePlain(const DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  at::Tensor a = w * at::scalar_tensor(2.0);
  at::Tensor s = torch::tensor(3.0);
  at::Tensor b = w + s;
  at::Tensor c = w * torch::ones({1});
  at::Tensor d = w - torch::zeros({});
  at::Tensor e = w + torch::full({1, 1}, 0.5);
  at::Tensor p = torch::randn({4});
  at::Tensor f = w * p.sum();
  at::Tensor total = p.sum();
  at::Tensor g = w - total;
  at::Tensor lr = torch::ones(1) * 0.1;
  at::Tensor h = w * lr.detach();
  at::Tensor loss = at::mse_loss(p, torch::zeros({4}));
  at::Tensor i = w + loss * 2;
  at::Tensor j = w * at::dot(p, p);
}

// Shape and type arguments are not operands.
void shapeOnly(const DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  at::Tensor local = meshguard::to_local(w);
  at::Tensor a = w.view_as(local);
  at::Tensor b = w.expand_as(local);
  at::Tensor c = w.to(local);
}

void notScalarLike(const DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  at::Tensor y = w * torch::ones({2});
  // CHECK-NOTES: :[[@LINE-1]]:18: warning: tensor op mixes the DTensor 'w' with the plain tensor 'torch::ones({2})'
  // CHECK-NOTES: :[[@LINE-3]]:18: note: 'w' is a DTensor: it comes from distribute_tensor() here
  // CHECK-NOTES: :[[@LINE-3]]:22: note: 'torch::ones({2})' is a plain tensor: it comes from torch::ones() here
  // CHECK-FIXES: at::Tensor y = w * meshguard::from_local(torch::ones({2}), *meshguard::mesh_of(w), {meshguard::Replicate{}});
  at::Tensor x = w + at::mse_loss(torch::randn({4}), torch::zeros({4}), 0);
  // CHECK-NOTES: :[[@LINE-1]]:18: warning: tensor op mixes the DTensor 'w' with the plain tensor 'at::mse_loss(torch::randn({4}), torch::zeros(...'
  // CHECK-NOTES: :[[@LINE-8]]:18: note: 'w' is a DTensor: it comes from distribute_tensor() here
  // CHECK-NOTES: :[[@LINE-3]]:35: note: 'at::mse_loss(torch::randn({4}), torch::zeros(...' is a plain tensor: it comes from torch::randn() here
  // CHECK-FIXES: at::Tensor x = w + meshguard::from_local(at::mse_loss(torch::randn({4}), torch::zeros({4}), 0), *meshguard::mesh_of(w), {meshguard::Replicate{}});
  at::Tensor z = w + torch::tensor({1.0, 2.0, 3.0, 4.0});
  // CHECK-NOTES: :[[@LINE-1]]:18: warning: tensor op mixes the DTensor 'w' with the plain tensor 'torch::tensor({1.0, 2.0, 3.0, 4.0})'
  // CHECK-NOTES: :[[@LINE-13]]:18: note: 'w' is a DTensor: it comes from distribute_tensor() here
  // CHECK-NOTES: :[[@LINE-3]]:22: note: 'torch::tensor({1.0, 2.0, 3.0, 4.0})' is a plain tensor: it comes from torch::tensor() here
  // CHECK-FIXES: at::Tensor z = w + meshguard::from_local(torch::tensor({1.0, 2.0, 3.0, 4.0}), *meshguard::mesh_of(w), {meshguard::Replicate{}});
}

// `*_like` of a DTensor is a DTensor (an op, not a factory).
void likeOfDTensor(const DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  at::Tensor y = at::add(w, at::zeros_like(w));
  at::Tensor z = w + torch::zeros_like(w);
}

void likeOfPlain(const DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  at::Tensor p = torch::randn({4});
  at::Tensor y = w + at::ones_like(p);
  // CHECK-NOTES: :[[@LINE-1]]:18: warning: tensor op mixes the DTensor 'w' with the plain tensor 'at::ones_like(p)'
  // CHECK-NOTES: :[[@LINE-4]]:18: note: 'w' is a DTensor: it comes from distribute_tensor() here
  // CHECK-NOTES: :[[@LINE-4]]:18: note: 'at::ones_like(p)' is a plain tensor: it comes from torch::randn() here
  // CHECK-FIXES: at::Tensor y = w + meshguard::from_local(at::ones_like(p), *meshguard::mesh_of(w), {meshguard::Replicate{}});
}

// The only mesh variable is hidden here: no fix-it, a note instead.
void meshHiddenForMixedOp(const DeviceMesh &mesh) {
  std::vector<at::Tensor> v{meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}})};
  {
    int mesh = 1;
    at::Tensor y = v[0] + torch::ones({4}) * mesh;
    // CHECK-NOTES: :[[@LINE-1]]:20: warning: tensor op mixes the DTensor 'v[0]' with the plain tensor 'torch::ones({4}) * mesh'
    // CHECK-NOTES: :[[@LINE-2]]:27: note: 'torch::ones({4}) * mesh' is a plain tensor: it comes from torch::ones() here
    // CHECK-NOTES: :[[@LINE-3]]:20: note: wrap the plain tensor as a Replicate DTensor: meshguard::from_local(t, mesh, {meshguard::Replicate{}})
  }
}
