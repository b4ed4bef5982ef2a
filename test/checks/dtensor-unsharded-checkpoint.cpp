// RUN: %check_meshguard %s dtensor-unsharded-checkpoint %t -- -- -I%stubs
// RUN: %cxx -fsyntax-only -std=c++17 -I%stubs %t.cpp

// libtorch's own serialization given distributed state: a DTensor or a
// distributed module (the runtime throws), a DTensor's to_local() written by
// every rank under one name (the shards overwrite each other), a load into a
// DTensor or a distributed module (the runtime throws). Each finding has a
// negative twin that must stay silent. The fixed file must compile.

#include <meshguard/meshguard.h>
#include <meshguard/runtime/Parallelize.h>

using meshguard::DeviceMesh;
using meshguard::Replicate;
using meshguard::Shard;

void saveDTensor(const DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({8, 4}), mesh, {Shard{0}});
  torch::save(w, "w.pt");
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'torch::save' is given the DTensor 'w': libtorch's serialization cannot write a DTensor (it has no storage of its own), so the runtime throws 'Cannot access storage of meshguard::DTensorImpl'; save it with meshguard::checkpoint::save, which writes every rank's shard and the layout [dtensor-unsharded-checkpoint]
  // CHECK-NOTES: :[[@LINE-3]]:18: note: 'w' is a DTensor: it comes from distribute_tensor() here
  // CHECK-FIXES: {{^}}  meshguard::checkpoint::save({{[{][{]}}"w", w{{[}][}]}}, "w.pt", *meshguard::mesh_of(w));{{$}}
}

// Negative twin: a plain tensor.
void savePlain() {
  at::Tensor w = torch::randn({8, 4});
  torch::save(w, "w.pt");
}

// Every rank writes its own shard to the same file.
void saveLocalShard(const DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({8, 4}), mesh, {Shard{0}});
  torch::save(meshguard::to_local(w), "w.pt");
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'torch::save' writes 'meshguard::to_local(w)', this rank's local shard of a DTensor, on every rank under the same name: the ranks overwrite each other's shard and nothing records the layout (mesh, placements, global shape); save the DTensor with meshguard::checkpoint::save [dtensor-unsharded-checkpoint]
  // CHECK-NOTES: :[[@LINE-2]]:15: note: 'to_local()' gives each rank only its own shard of the DTensor 'w'
  at::Tensor local = meshguard::to_local(w);
  torch::save(local, "local.pt");
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'torch::save' writes 'local', this rank's local shard of a DTensor, on every rank under the same name
  // CHECK-NOTES: :[[@LINE-3]]:22: note: 'to_local()' gives each rank only its own shard of the DTensor 'w'
}

// Negative twins: the full tensor written on rank 0 (gathered on every
// rank); the local tensor written by one rank (a Replicate DTensor's is the
// whole value); each rank's shard in a file of its own; to_local() of a
// plain tensor.
void saveOnRankZero(const DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({8, 4}), mesh, {Replicate{}});
  at::Tensor full = meshguard::full_tensor(w);
  if (mesh.get_rank() == 0)
    torch::save(full, "w.pt");
  if (mesh.get_rank() == 0)
    torch::save(meshguard::to_local(w), "w0.pt");
  torch::save(meshguard::to_local(w), "w" + std::to_string(mesh.get_rank()) + ".pt");
  torch::save(meshguard::to_local(torch::ones({2})), "p.pt");
}

// A module whose parameters are DTensors, however it was distributed.
void saveModules(const DeviceMesh &mesh) {
  torch::nn::Linear model(4, 2);
  meshguard::distribute_module(*model, mesh);
  torch::save(model, "model.pt");
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'torch::save' is given module 'model', whose parameters are DTensors: libtorch's serialization cannot write them, so the runtime throws 'Cannot access storage of meshguard::DTensorImpl'; save meshguard::checkpoint::module_state(...) with meshguard::checkpoint::save [dtensor-unsharded-checkpoint]
  // CHECK-NOTES: :[[@LINE-3]]:3: note: 'model' is distributed here: its parameters are DTensors from here on
  // CHECK-FIXES: {{^}}  meshguard::checkpoint::save(meshguard::checkpoint::module_state(*model), "model.pt", mesh);{{$}}
  torch::nn::Linear fsdp(4, 2);
  meshguard::fully_shard(*fsdp, mesh);
  torch::save(fsdp, "fsdp.pt");
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'torch::save' is given module 'fsdp', whose parameters are DTensors
  // CHECK-NOTES: :[[@LINE-3]]:3: note: 'fsdp' is distributed here
  // CHECK-FIXES: {{^}}  meshguard::checkpoint::save(meshguard::checkpoint::module_state(*fsdp), "fsdp.pt", mesh);{{$}}
  torch::nn::Linear tp(4, 2);
  meshguard::parallelize_module(*tp, mesh, meshguard::ColwiseParallel{});
  torch::save(tp, "tp.pt");
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'torch::save' is given module 'tp', whose parameters are DTensors
  // CHECK-NOTES: :[[@LINE-3]]:3: note: 'tp' is distributed here
  // CHECK-FIXES: {{^}}  meshguard::checkpoint::save(meshguard::checkpoint::module_state(*tp), "tp.pt", mesh);{{$}}
}

// Negative twins: saved before it is distributed; never distributed.
void saveModulesBefore(const DeviceMesh &mesh) {
  torch::nn::Linear model(4, 2);
  torch::save(model, "model.pt");
  meshguard::distribute_module(*model, mesh);
  torch::nn::Linear other(4, 2);
  torch::save(other, "other.pt");
}

// OutputArchive::write and lists: no fix-it (the rewrite is not one call).
void archives(const DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({8, 4}), mesh, {Shard{0}});
  torch::serialize::OutputArchive archive;
  archive.write("w", w);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'OutputArchive::write' is given the DTensor 'w': libtorch's serialization cannot write a DTensor
  // CHECK-NOTES: :[[@LINE-4]]:18: note: 'w' is a DTensor: it comes from distribute_tensor() here
  std::vector<at::Tensor> ts{w};
  torch::save(ts, "ts.pt");
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'torch::save' is given 'ts', which holds a DTensor: libtorch's serialization cannot write a DTensor
  // CHECK-NOTES: :[[@LINE-2]]:15: note: 'ts' holds a DTensor here
}

// Negative twins: plain tensors into an archive and a list.
void plainArchives() {
  torch::serialize::OutputArchive archive;
  archive.write("p", torch::ones({2}));
  std::vector<at::Tensor> ts{torch::ones({2})};
  torch::save(ts, "ts.pt");
}

// Loading into distributed state.
void loads(const DeviceMesh &mesh) {
  torch::nn::Linear model(4, 2);
  meshguard::distribute_module(*model, mesh);
  torch::load(model, "model.pt");
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'torch::load' into module 'model', whose parameters are DTensors: libtorch's load sets each tensor to a plain one, so the runtime throws 'aten.set_.source_Tensor got mixed torch.Tensor and DTensor'; load before distributing, or load a meshguard::checkpoint::save checkpoint with meshguard::checkpoint::load(meshguard::checkpoint::module_state(...), dir) [dtensor-unsharded-checkpoint]
  // CHECK-NOTES: :[[@LINE-3]]:3: note: 'model' is distributed here: its parameters are DTensors from here on
  at::Tensor w = meshguard::distribute_tensor(torch::randn({8, 4}), mesh, {Shard{0}});
  torch::load(w, "w.pt");
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'torch::load' into the DTensor 'w': libtorch's load sets each tensor to a plain one, so the runtime throws 'aten.set_.source_Tensor got mixed torch.Tensor and DTensor'; load before distributing, or load a meshguard::checkpoint::save checkpoint with meshguard::checkpoint::load [dtensor-unsharded-checkpoint]
  // CHECK-NOTES: :[[@LINE-3]]:18: note: 'w' is a DTensor: it comes from distribute_tensor() here
}

// Negative twins: loaded before it is distributed; a plain tensor.
void loadsBefore(const DeviceMesh &mesh) {
  torch::nn::Linear model(4, 2);
  torch::load(model, "model.pt");
  meshguard::distribute_module(*model, mesh);
  at::Tensor p = torch::zeros({8, 4});
  torch::load(p, "p.pt");
}
