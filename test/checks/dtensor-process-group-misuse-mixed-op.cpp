// RUN: %check_meshguard %s dtensor-process-group-misuse,dtensor-mixed-tensor-op %t -- -- -I%stubs
// RUN: %cxx -fsyntax-only -std=c++17 -I%stubs %t.cpp

// A list element that is a mixed op, `{w + bias}`, handed to a raw process
// group: both checks warn and both offer a fix-it on the same text. The
// to_local() fix replaces the whole element, the from_local() fix inserts
// inside it: clang-tidy applies the first and drops the second (the next
// run offers it again, inside to_local()). The result compiles.

#include <meshguard/meshguard.h>

using meshguard::DeviceMesh;
using meshguard::Replicate;

void mixedElement(c10d::ProcessGroup &pg, const DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::zeros({4}), mesh, {Replicate{}});
  at::Tensor bias = torch::zeros({4});
  std::vector<at::Tensor> ts = {w + bias};
  // CHECK-NOTES: :[[@LINE-1]]:33: warning: tensor op mixes the DTensor 'w' with the plain tensor 'bias': the runtime throws 'mixed torch.Tensor and DTensor' [dtensor-mixed-tensor-op]
  // CHECK-NOTES: :[[@LINE-4]]:18: note: 'w' is a DTensor: it comes from distribute_tensor() here
  // CHECK-NOTES: :[[@LINE-4]]:21: note: 'bias' is a plain tensor: it comes from torch::zeros() here
  // CHECK-NOTES: {{^}}note: this fix will not be applied because it overlaps with another fix
  pg.broadcast(ts);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: raw process-group collective 'c10d.broadcast_.default' is given a DTensor ('ts'): c10d collectives work on local tensors; pass meshguard::to_local(...) of it [dtensor-process-group-misuse]
  // CHECK-NOTES: :[[@LINE-2]]:16: note: 'ts' holds a DTensor here
  // CHECK-NOTES: :[[@LINE-3]]:3: note: to keep the tensors distributed, call the mesh-aware collective 'meshguard::dist::broadcast_' instead
  // CHECK-FIXES: {{^}}  std::vector<at::Tensor> ts = {meshguard::to_local(w + bias)};
}

// The same with the plain operand first.
void mixedElementPlainFirst(c10d::ProcessGroup &pg, const DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::zeros({4}), mesh, {Replicate{}});
  at::Tensor bias = torch::zeros({4});
  std::vector<at::Tensor> ts = {bias + w, w};
  // CHECK-NOTES: :[[@LINE-1]]:33: warning: tensor op mixes the DTensor 'w' with the plain tensor 'bias'
  // CHECK-NOTES: :[[@LINE-4]]:18: note: 'w' is a DTensor: it comes from distribute_tensor() here
  // CHECK-NOTES: :[[@LINE-4]]:21: note: 'bias' is a plain tensor: it comes from torch::zeros() here
  // CHECK-NOTES: {{^}}note: this fix will not be applied because it overlaps with another fix
  pg.allreduce(ts);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: raw process-group collective 'c10d.allreduce_.default' is given a DTensor ('ts')
  // CHECK-NOTES: :[[@LINE-2]]:16: note: 'ts' holds a DTensor here
  // CHECK-NOTES: :[[@LINE-3]]:3: note: to keep the tensors distributed, call the mesh-aware collective 'meshguard::dist::all_reduce_' instead
  // CHECK-FIXES: {{^}}  std::vector<at::Tensor> ts = {meshguard::to_local(bias + w), meshguard::to_local(w)};
}

// Negative twin: no mixed op in the element, one fix-it, applied.
void wrappedElement(c10d::ProcessGroup &pg, const DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::zeros({4}), mesh, {Replicate{}});
  at::Tensor bias = torch::zeros({4});
  std::vector<at::Tensor> ts = {w + meshguard::from_local(bias, mesh, {Replicate{}})};
  pg.broadcast(ts);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: raw process-group collective 'c10d.broadcast_.default' is given a DTensor ('ts')
  // CHECK-NOTES: :[[@LINE-2]]:16: note: 'ts' holds a DTensor here
  // CHECK-NOTES: :[[@LINE-3]]:3: note: to keep the tensors distributed, call the mesh-aware collective 'meshguard::dist::broadcast_' instead
  // CHECK-FIXES: {{^}}  std::vector<at::Tensor> ts = {meshguard::to_local(w + meshguard::from_local(bias, mesh, {Replicate{}}))};
}
