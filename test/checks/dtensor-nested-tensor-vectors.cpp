// RUN: %check_meshguard %s dtensor-collective-without-mesh,dtensor-process-group-misuse %t -- -- -I%stubs

// Vectors of tensor vectors (the c10d allgather outputs): the outer vector's
// facts combine those of every tensor inside. Inner vectors come in through
// braced lists, push_back and emplace_back; an inner vector taken out
// (range-for, [i]) is plain when every tensor is, a DTensor list when every
// tensor is one.
#include <meshguard/meshguard.h>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>

using meshguard::DeviceMesh;
using meshguard::Replicate;

using Nested = std::vector<std::vector<at::Tensor>>;

// What meshguard's runtime does in compat::all_gather, given a DTensor.
void allgatherOfDTensor(c10d::ProcessGroup &pg, const DeviceMesh &mesh) {
  at::Tensor dt = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  std::vector<at::Tensor> outputs = {dt, dt};
  Nested out{outputs};
  std::vector<at::Tensor> in{torch::randn({4})};
  pg.allgather(out, in);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: raw process-group collective 'c10d.allgather_.default' is given a DTensor ('out'){{.*}} [dtensor-process-group-misuse]
}

void nestedListOfDTensor(c10d::ProcessGroup &pg, const DeviceMesh &mesh) {
  at::Tensor dt = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  Nested out = {{torch::zeros({4})}, {dt}};
  std::vector<at::Tensor> in = {torch::randn({4})};
  pg.allgather(out, in);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: raw process-group collective 'c10d.allgather_.default' is given a DTensor ('out'){{.*}} [dtensor-process-group-misuse]
}

void pushedBackDTensors(c10d::ProcessGroup &pg, const DeviceMesh &mesh) {
  at::Tensor dt = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  std::vector<at::Tensor> in = {torch::randn({4})};
  Nested out;
  out.push_back(std::vector<at::Tensor>{dt});
  pg.allgather(out, in);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: raw process-group collective 'c10d.allgather_.default' is given a DTensor ('out'){{.*}} [dtensor-process-group-misuse]
  std::vector<at::Tensor> inputs = {dt};
  Nested scattered;
  scattered.emplace_back(inputs);
  std::vector<at::Tensor> output = {torch::zeros({4})};
  pg.reduce_scatter(output, scattered);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: raw process-group collective 'c10d.reduce_scatter_.default' is given a DTensor ('scattered'){{.*}} [dtensor-process-group-misuse]
}

// Negative twins: local tensors only; a vector changed by unknown code; an
// outer vector from elsewhere.
void allgatherOfLocals(c10d::ProcessGroup &pg, const DeviceMesh &mesh) {
  at::Tensor dt = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  Nested out = {{meshguard::to_local(dt), torch::zeros({4})}, {}};
  std::vector<at::Tensor> in = {meshguard::to_local(dt)};
  pg.allgather(out, in);
  Nested more;
  more.push_back({torch::zeros({4})});
  pg.allgather(more, in);
}

void fill(Nested &out);
void changedByUnknownCode(c10d::ProcessGroup &pg, std::vector<at::Tensor> &in) {
  Nested out = {{torch::zeros({4})}};
  fill(out);
  pg.allgather(out, in);
}

void fromElsewhere(c10d::ProcessGroup &pg, Nested &out,
                   std::vector<at::Tensor> &in) {
  pg.allgather(out, in);
}

// Inner vectors handed to mesh-inferred collectives.
void innerOfPlain() {
  const Nested grads = {{torch::zeros({4})}, {torch::ones({4})}};
  for (const std::vector<at::Tensor> &bucket : grads)
    meshguard::dist::all_reduce_(bucket);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: collective 'c10d.allreduce_.default' has no DeviceMesh{{.*}} [dtensor-collective-without-mesh]
  meshguard::dist::broadcast_(grads[1], 0);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: collective 'c10d.broadcast_.default' has no DeviceMesh{{.*}} [dtensor-collective-without-mesh]
}

void innerOfDTensors(const DeviceMesh &mesh) {
  at::Tensor dt = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  const Nested grads = {{dt}, {dt, dt}};
  for (const auto &bucket : grads)
    meshguard::dist::all_reduce_(bucket);
  meshguard::dist::broadcast_(grads[0], 0);
}

void innerOfMixed(const DeviceMesh &mesh) {
  at::Tensor dt = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  const Nested grads = {{torch::zeros({4})}, {dt}};
  for (const auto &bucket : grads)
    meshguard::dist::all_reduce_(bucket);
}

void innerWrittenThrough(const DeviceMesh &mesh) {
  Nested grads = {{torch::zeros({4})}};
  for (auto &bucket : grads)
    bucket.push_back(meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}}));
  meshguard::dist::all_reduce_(grads[0]);
}
