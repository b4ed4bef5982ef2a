// REQUIRES: runtime
// RUN: %check_meshguard %s dtensor-unsharded-checkpoint %t -- \
// RUN:   -- -I%runtime_include %torch_cflags
// RUN: %cxx -fsyntax-only -std=c++17 -I%runtime_include %torch_cflags %t.cpp

// dtensor-unsharded-checkpoint against the real meshguard runtime and
// libtorch headers (torch::save and torch::load are libtorch's templates,
// meshguard::checkpoint the runtime's): the findings, and fix-its that
// compile there. Slow (~20 s: two parses of <torch/torch.h>); the stub
// tests cover the details.

#include <meshguard/meshguard.h>
#include <torch/torch.h>

void saves(const meshguard::DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({8, 4}), mesh, {meshguard::Shard{0}});
  torch::save(w, "w.pt");
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'torch::save' is given the DTensor 'w'
  // CHECK-FIXES: meshguard::checkpoint::save({{[{][{]}}"w", w{{[}][}]}}, "w.pt", *meshguard::mesh_of(w));
  torch::nn::Linear model(4, 2);
  meshguard::distribute_module(*model, mesh);
  torch::save(model, std::string("model.pt"));
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'torch::save' is given module 'model', whose parameters are DTensors
  // CHECK-FIXES: meshguard::checkpoint::save(meshguard::checkpoint::module_state(*model), std::string("model.pt"), mesh);
  torch::save(meshguard::to_local(w), "local.pt");
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'torch::save' writes 'meshguard::to_local(w)', this rank's local shard of a DTensor, on every rank under the same name
  torch::load(model, "model.pt");
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'torch::load' into module 'model', whose parameters are DTensors
}

// Negative twins: the gathered value on rank 0; a module loaded before it
// is distributed.
void fine(const meshguard::DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({8, 4}), mesh, {meshguard::Shard{0}});
  at::Tensor full = meshguard::full_tensor(w);
  if (mesh.get_rank() == 0)
    torch::save(full, "w.pt");
  torch::nn::Linear model(4, 2);
  torch::load(model, "model.pt");
  meshguard::distribute_module(*model, mesh);
}
