// RUN: %check_meshguard %s dtensor-mixed-tensor-op %t -- -- -I%stubs

// A DTensor handed to a helper of this file whose tensor op mixes it with a
// plain tensor (or a plain tensor handed to one that mixes it with a
// DTensor): reported at the call, with a note at the op in the helper.
#include <meshguard/meshguard.h>
#include <torch/torch.h>

using meshguard::DeviceMesh;
using meshguard::Replicate;

at::Tensor addNoise(const at::Tensor &t) {
  at::Tensor noise = torch::randn({4});
  return t + noise;
}

at::Tensor scaleByValue(at::Tensor t) {
  at::Tensor s = torch::ones({4});
  return t * s;
}

at::Tensor addReplicatedBias(const at::Tensor &x, const DeviceMesh &mesh) {
  at::Tensor bias = meshguard::distribute_tensor(torch::zeros({4}), mesh, {Replicate{}});
  return x + bias;
}

void dtensorIntoHelpers(const DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  at::Tensor a = addNoise(w);
  // CHECK-NOTES: :[[@LINE-1]]:18: warning: call to 'addNoise' makes a tensor op inside it mix the DTensor 'w' with a plain tensor: the runtime throws 'mixed torch.Tensor and DTensor' [dtensor-mixed-tensor-op]
  // CHECK-NOTES: :14:10: note: the tensor op is here; its other operand is a plain tensor
  at::Tensor b = scaleByValue(w);
  // CHECK-NOTES: :[[@LINE-1]]:18: warning: call to 'scaleByValue' makes a tensor op inside it mix the DTensor 'w' with a plain tensor
  // CHECK-NOTES: :19:10: note: the tensor op is here; its other operand is a plain tensor
  at::Tensor p = torch::randn({4});
  at::Tensor c = addReplicatedBias(p, mesh);
  // CHECK-NOTES: :[[@LINE-1]]:18: warning: call to 'addReplicatedBias' makes a tensor op inside it mix the plain tensor 'p' with a DTensor
  // CHECK-NOTES: :24:10: note: the tensor op is here; its other operand is a DTensor
}

// Negative twins: what the helper expects, unknown arguments, a local copy.
void rightKinds(const DeviceMesh &mesh, at::Tensor unknown) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  at::Tensor p = torch::randn({4});
  at::Tensor a = addNoise(p);
  at::Tensor b = scaleByValue(meshguard::to_local(w));
  at::Tensor c = addReplicatedBias(w, mesh);
  at::Tensor d = addNoise(unknown);
}
