// RUN: %check_meshguard %s dtensor-mixed-tensor-op %t -- -- -I%stubs

// A mixed-op sink passes through helpers that hand their parameter on
// (up to the summaries' depth bound, 3): reported at the outermost call,
// with a note at the op in the innermost helper.
#include <meshguard/meshguard.h>
#include <torch/torch.h>

using meshguard::DeviceMesh;
using meshguard::Replicate;

at::Tensor addNoise(const at::Tensor &t) {
  at::Tensor noise = torch::randn({4});
  return t + noise;
}
at::Tensor step(const at::Tensor &x) { return addNoise(x); }
at::Tensor outerStep(at::Tensor x) {
  at::Tensor y = step(x);
  return y;
}

void twoAndThreeLevels(const DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  at::Tensor a = step(w);
  // CHECK-NOTES: :[[@LINE-1]]:18: warning: call to 'step' makes a tensor op inside it mix the DTensor 'w' with a plain tensor: the runtime throws 'mixed torch.Tensor and DTensor' [dtensor-mixed-tensor-op]
  // CHECK-NOTES: :14:10: note: the tensor op is here; its other operand is a plain tensor
  at::Tensor b = outerStep(w);
  // CHECK-NOTES: :[[@LINE-1]]:18: warning: call to 'outerStep' makes a tensor op inside it mix the DTensor 'w' with a plain tensor
  // CHECK-NOTES: :14:10: note: the tensor op is here; its other operand is a plain tensor
  // Negative twins: a plain tensor, and a helper that makes its argument
  // local before handing it on.
  at::Tensor c = step(torch::zeros({4}));
}

at::Tensor localStep(const at::Tensor &x) {
  return addNoise(meshguard::to_local(x));
}

void madeLocalOnTheWay(const DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  at::Tensor a = localStep(w);
}
