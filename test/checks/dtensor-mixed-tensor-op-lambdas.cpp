// RUN: %check_meshguard %s dtensor-mixed-tensor-op %t -- -- -I%stubs

// A DTensor handed to a lambda or a function object called directly whose
// tensor op mixes it with a plain tensor (or a plain tensor handed to one
// that mixes it with a DTensor): reported at the call, with a note at the op
// inside. The plain operand may be captured (by copy, or by reference when
// nothing changes it after the lambda is made).
#include <meshguard/meshguard.h>
#include <torch/torch.h>

using meshguard::DeviceMesh;
using meshguard::Replicate;

void lambdas(const DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  at::Tensor noise = torch::randn({4});
  auto addNoise = [noise](const at::Tensor &t) { return t + noise; };
  at::Tensor a = addNoise(w);
  // CHECK-NOTES: :[[@LINE-1]]:18: warning: call to 'addNoise' makes a tensor op inside it mix the DTensor 'w' with a plain tensor: the runtime throws 'mixed torch.Tensor and DTensor' [dtensor-mixed-tensor-op]
  // CHECK-NOTES: :[[@LINE-3]]:57: note: the tensor op is here; its other operand is a plain tensor
  auto scale = [&](at::Tensor t) {
    at::Tensor s = torch::ones({4});
    return t * s;
  };
  at::Tensor b = scale(w);
  // CHECK-NOTES: :[[@LINE-1]]:18: warning: call to 'scale' makes a tensor op inside it mix the DTensor 'w' with a plain tensor
  // CHECK-NOTES: :[[@LINE-4]]:12: note: the tensor op is here; its other operand is a plain tensor
  auto addBias = [&](const at::Tensor &x) { return x + w; };
  at::Tensor c = addBias(noise);
  // CHECK-NOTES: :[[@LINE-1]]:18: warning: call to 'addBias' makes a tensor op inside it mix the plain tensor 'noise' with a DTensor
  // CHECK-NOTES: :[[@LINE-3]]:52: note: the tensor op is here; its other operand is a DTensor
  // Negative twins: what each lambda expects.
  at::Tensor d = addNoise(noise);
  at::Tensor e = scale(meshguard::to_local(w));
  at::Tensor f = addBias(w);
}

// Negative twin: the captured tensor changes after the lambda is made, so
// what it is when the lambda runs is not known from its creation.
void capturedChangesLater(const DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  at::Tensor bias = torch::zeros({4});
  auto addBias = [&](const at::Tensor &x) { return x + bias; };
  bias = meshguard::distribute_tensor(bias, mesh, {Replicate{}});
  at::Tensor a = addBias(w);
}

struct AddPlainNoise {
  at::Tensor operator()(const at::Tensor &t) const {
    at::Tensor noise = torch::randn({4});
    return t + noise;
  }
};

void functor(const DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  AddPlainNoise addNoise;
  at::Tensor a = addNoise(w);
  // CHECK-NOTES: :[[@LINE-1]]:18: warning: call to 'addNoise' makes a tensor op inside it mix the DTensor 'w' with a plain tensor
  // CHECK-NOTES: :51:12: note: the tensor op is here; its other operand is a plain tensor
  at::Tensor b = addNoise(meshguard::to_local(w));
}
