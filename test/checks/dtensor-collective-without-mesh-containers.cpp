// RUN: %check_meshguard %s dtensor-collective-without-mesh %t -- -- -I%stubs

// Containers of tensors: init lists, push_back/emplace_back, clear, element
// access, TensorList views, reserve, n copies, and unknown mutation.

#include <meshguard/meshguard.h>

using meshguard::DeviceMesh;
using meshguard::Replicate;

void pushBackPlain() {
  std::vector<at::Tensor> ts;
  ts.push_back(torch::randn({2}));
  ts.emplace_back(torch::zeros({2}));
  meshguard::dist::broadcast_(ts, 0);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: collective 'c10d.broadcast_.default' has no DeviceMesh
}

void pushBackDTensor(const DeviceMesh &mesh) {
  std::vector<at::Tensor> ts;
  ts.push_back(torch::randn({2}));
  ts.push_back(meshguard::distribute_tensor(torch::randn({2}), mesh, {Replicate{}}));
  meshguard::dist::broadcast_(ts, 0);
}

void clearedThenPlain(const DeviceMesh &mesh) {
  std::vector<at::Tensor> ts = {meshguard::distribute_tensor(torch::randn({2}), mesh, {})};
  ts.clear();
  ts.push_back(torch::ones({2}));
  meshguard::dist::all_reduce_(ts);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: collective 'c10d.allreduce_.default' has no DeviceMesh
}

void elementOfPlainVector() {
  const std::vector<at::Tensor> ts = {torch::ones({2}), torch::zeros({2})};
  at::Tensor first = ts[0];
  meshguard::dist::broadcast_({first}, 0);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: collective 'c10d.broadcast_.default' has no DeviceMesh
}

void elementOfMixedVector(const DeviceMesh &mesh) {
  const std::vector<at::Tensor> ts = {torch::ones({2}),
                                      meshguard::distribute_tensor(torch::ones({2}), mesh, {})};
  at::Tensor first = ts[0];
  meshguard::dist::broadcast_({first}, 0);
}

void fill(std::vector<at::Tensor> &ts);
void unknownMutation() {
  std::vector<at::Tensor> ts = {torch::ones({2})};
  fill(ts);
  meshguard::dist::broadcast_(ts, 0);
}

void copiedVector() {
  std::vector<at::Tensor> ts = {torch::ones({2})};
  auto copy = ts;
  meshguard::dist::broadcast_(std::move(copy), 0);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: collective 'c10d.broadcast_.default' has no DeviceMesh
}

void parameterVector(std::vector<at::Tensor> ts) { meshguard::dist::broadcast_(ts, 0); }

void tensorListView() {
  std::vector<at::Tensor> ts = {torch::ones({2})};
  at::TensorList view = ts;
  at::Tensor joined = at::cat(view);
  meshguard::dist::broadcast_({joined}, 0);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: collective 'c10d.broadcast_.default' has no DeviceMesh
}

void tensorListOfDTensor(const DeviceMesh &mesh) {
  std::vector<at::Tensor> ts = {meshguard::distribute_tensor(torch::ones({2}), mesh, {})};
  at::TensorList view = ts;
  at::Tensor joined = at::cat(view);
  meshguard::dist::broadcast_({joined}, 0);
}

void reassignedFromList(const DeviceMesh &mesh) {
  std::vector<at::Tensor> ts = {meshguard::distribute_tensor(torch::ones({2}), mesh, {})};
  ts = {torch::zeros({2})};
  meshguard::dist::broadcast_(ts, 0);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: collective 'c10d.broadcast_.default' has no DeviceMesh
}

// Range-for: elements of a container, by value or const reference.
void rangeForPlain() {
  std::vector<at::Tensor> ts = {torch::ones({2}), torch::zeros({2})};
  for (const at::Tensor &t : ts) {
    meshguard::dist::all_reduce_({t});
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: collective 'c10d.allreduce_.default' has no DeviceMesh
  }
  for (at::Tensor t : ts)
    meshguard::dist::broadcast_({t}, 0);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: collective 'c10d.broadcast_.default' has no DeviceMesh
  meshguard::dist::broadcast_(ts, 0);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: collective 'c10d.broadcast_.default' has no DeviceMesh
}

void rangeForDTensors(const DeviceMesh &mesh) {
  std::vector<at::Tensor> ts = {meshguard::distribute_tensor(torch::ones({2}), mesh, {})};
  for (const auto &t : ts)
    meshguard::dist::all_reduce_({t});
}

void rangeForWritesThroughReference(const DeviceMesh &mesh) {
  std::vector<at::Tensor> ts = {torch::ones({2})};
  for (auto &t : ts)
    t = meshguard::distribute_tensor(t, mesh, {Replicate{}});
  meshguard::dist::broadcast_(ts, 0);
}

void rangeForTensorList(at::TensorList list, const DeviceMesh &mesh) {
  for (const at::Tensor &t : list)
    meshguard::dist::broadcast_({t}, 0);
}

void guardOutputs(const DeviceMesh &mesh) {
  meshguard::CollectiveGuard guard(mesh);
  std::vector<at::Tensor> safe = guard.sanitize_args({torch::ones({2})});
  meshguard::dist::broadcast_(safe, 0);
  for (const at::Tensor &t : safe)
    meshguard::dist::all_reduce_({t});
}

// reserve() changes only the capacity: the usual way to fill a vector.
void reservedThenFilled(const std::vector<at::Tensor> &params) {
  std::vector<at::Tensor> grads;
  grads.reserve(params.size());
  grads.push_back(torch::zeros({2}));
  grads.shrink_to_fit();
  meshguard::dist::all_reduce_(grads);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: collective 'c10d.allreduce_.default' has no DeviceMesh
}

void reservedThenFilledWithDTensors(const DeviceMesh &mesh) {
  std::vector<at::Tensor> grads;
  grads.reserve(2);
  grads.push_back(meshguard::distribute_tensor(torch::zeros({2}), mesh, {Replicate{}}));
  meshguard::dist::all_reduce_(grads);
}

// n copies of one tensor.
void copiesOfPlain(int n) {
  std::vector<at::Tensor> ts(n, torch::zeros({2}));
  meshguard::dist::broadcast_(ts, 0);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: collective 'c10d.broadcast_.default' has no DeviceMesh
}

void copiesOfDTensor(int n, const DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::zeros({2}), mesh, {Replicate{}});
  std::vector<at::Tensor> ts(n, w);
  meshguard::dist::broadcast_(ts, 0);
}
