// RUN: %check_meshguard %s dtensor-unsharded-checkpoint %t -- -- -I%stubs
// RUN: %cxx -fsyntax-only -std=c++17 -I%stubs %t.cpp

// When torch::save becomes meshguard::checkpoint::save: only where every
// rank runs it (it is collective), with one path for all ranks, a path (not
// a stream), and a mesh that can be named: a DTensor variable's own
// (mesh_of), or the mesh variable the module was distributed on, visible
// under that name. Otherwise the warning says why there is no fix-it. The
// fixed file must compile.

#include <meshguard/meshguard.h>
#include <meshguard/runtime/Parallelize.h>
#include <ostream>

using meshguard::DeviceMesh;
using meshguard::Shard;

// Only rank 0 saves: checkpoint::save there would hang the job.
void onRankZero(const DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({8, 4}), mesh, {Shard{0}});
  if (mesh.get_rank() == 0)
    torch::save(w, "w.pt");
  // CHECK-NOTES: :[[@LINE-1]]:5: warning: 'torch::save' is given the DTensor 'w'
  // CHECK-NOTES: :[[@LINE-4]]:18: note: 'w' is a DTensor: it comes from distribute_tensor() here
  // CHECK-NOTES: :[[@LINE-3]]:5: note: no fix-it: meshguard::checkpoint::save is collective (every rank of the mesh calls it), and whether this save runs depends on the rank
  // CHECK-NOTES: :[[@LINE-5]]:7: note: the rank-dependent value comes from 'mesh.get_rank()' here
  // CHECK-FIXES: {{^}}    torch::save(w, "w.pt");{{$}}
}

// The other ranks have left.
void afterEarlyExit(const DeviceMesh &mesh) {
  torch::nn::Linear model(4, 2);
  meshguard::distribute_module(*model, mesh);
  if (mesh.get_rank() != 0)
    return;
  torch::save(model, "model.pt");
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'torch::save' is given module 'model', whose parameters are DTensors
  // CHECK-NOTES: :[[@LINE-5]]:3: note: 'model' is distributed here
  // CHECK-NOTES: :[[@LINE-3]]:3: note: no fix-it: meshguard::checkpoint::save is collective
  // CHECK-NOTES: :[[@LINE-6]]:7: note: the rank-dependent value comes from 'mesh.get_rank()' here
  // CHECK-FIXES: {{^}}  torch::save(model, "model.pt");{{$}}
}

// A file per rank: checkpoint::save takes one directory.
void perRankPath(const DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({8, 4}), mesh, {Shard{0}});
  torch::save(w, "w" + std::to_string(mesh.get_rank()) + ".pt");
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'torch::save' is given the DTensor 'w'
  // CHECK-NOTES: :[[@LINE-3]]:18: note: 'w' is a DTensor: it comes from distribute_tensor() here
  // CHECK-NOTES: :[[@LINE-3]]:3: note: no fix-it: the path differs per rank, and meshguard::checkpoint::save takes one directory that every rank writes into
  // CHECK-NOTES: :[[@LINE-4]]:39: note: the rank-dependent value comes from 'mesh.get_rank()' here
}

// The distributing call's mesh is hidden at the save.
void hiddenMesh(const DeviceMesh &mesh) {
  torch::nn::Linear model(4, 2);
  meshguard::distribute_module(*model, mesh);
  {
    DeviceMesh mesh("cpu", {2});
    torch::save(model, "model.pt");
    // CHECK-NOTES: :[[@LINE-1]]:5: warning: 'torch::save' is given module 'model', whose parameters are DTensors
    // CHECK-NOTES: :[[@LINE-5]]:3: note: 'model' is distributed here
    // CHECK-NOTES: :[[@LINE-3]]:5: note: no fix-it: the mesh the module was distributed on cannot be named here; pass it as meshguard::checkpoint::save's third argument
  }
}

// Two meshes: which one the module's parameters are on is not one name.
void twoMeshes(const DeviceMesh &mesh, const DeviceMesh &other, bool big) {
  torch::nn::Linear model(4, 2);
  if (big)
    meshguard::distribute_module(*model, mesh);
  else
    meshguard::distribute_module(*model, other);
  torch::save(model, "model.pt");
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'torch::save' is given module 'model', whose parameters are DTensors
  // CHECK-NOTES: :[[@LINE-5]]:5: note: 'model' is distributed here
  // CHECK-NOTES: :[[@LINE-4]]:5: note: 'model' is distributed here
  // CHECK-NOTES: :[[@LINE-4]]:3: note: no fix-it: the mesh the module was distributed on cannot be named here
}

// A stream, and an expression (no entry name): the warning alone.
void streamAndExpression(const DeviceMesh &mesh, std::ostream &out) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({8, 4}), mesh, {Shard{0}});
  torch::save(w, out);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'torch::save' is given the DTensor 'w'
  // CHECK-NOTES: :[[@LINE-3]]:18: note: 'w' is a DTensor: it comes from distribute_tensor() here
  torch::save(w * 2, "w.pt");
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'torch::save' is given the DTensor 'w * 2'
  // CHECK-NOTES: :[[@LINE-6]]:18: note: 'w * 2' is a DTensor: it comes from distribute_tensor() here
  // CHECK-FIXES: {{^}}  torch::save(w * 2, "w.pt");{{$}}
}

struct Net : torch::nn::Module {
  torch::nn::Linear fc1{4, 4};
};

// A std::shared_ptr module and a submodule: module_state of the object.
void pointers(const DeviceMesh &mesh) {
  auto model = std::make_shared<torch::nn::LinearImpl>(4, 2);
  meshguard::fully_shard(*model, mesh);
  torch::save(model, std::string("model.pt"));
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'torch::save' is given module 'model', whose parameters are DTensors
  // CHECK-NOTES: :[[@LINE-3]]:3: note: 'model' is distributed here
  // CHECK-FIXES: {{^}}  meshguard::checkpoint::save(meshguard::checkpoint::module_state(*model), std::string("model.pt"), mesh);{{$}}
  auto net = std::make_shared<Net>();
  meshguard::distribute_module(*net->fc1, mesh);
  torch::save(net, "net.pt");
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'torch::save' is given module 'net', whose parameters are DTensors
  // CHECK-NOTES: :[[@LINE-3]]:3: note: 'net->fc1' is distributed here
  // CHECK-FIXES: {{^}}  meshguard::checkpoint::save(meshguard::checkpoint::module_state(*net), "net.pt", mesh);{{$}}
  torch::save(net->fc1, "fc1.pt");
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'torch::save' is given module 'net->fc1', whose parameters are DTensors
  // CHECK-NOTES: :[[@LINE-7]]:3: note: 'net->fc1' is distributed here
  // CHECK-FIXES: {{^}}  meshguard::checkpoint::save(meshguard::checkpoint::module_state(*net->fc1), "fc1.pt", mesh);{{$}}
}

// A DTensor made from a parameter, saved under a std::string path.
void fromParameter(const DeviceMesh &mesh, at::Tensor t) {
  at::Tensor w = meshguard::distribute_tensor(t, mesh, {Shard{0}});
  torch::save(w, std::string("w.pt"));
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'torch::save' is given the DTensor 'w'
  // CHECK-NOTES: :[[@LINE-3]]:18: note: 'w' is a DTensor: it comes from distribute_tensor() here
  // CHECK-FIXES: {{^}}  meshguard::checkpoint::save({{[{][{]}}"w", w{{[}][}]}}, std::string("w.pt"), *meshguard::mesh_of(w));{{$}}
}

// In a lambda: where it is called decides whether every rank runs it.
void inLambda(const DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({8, 4}), mesh, {Shard{0}});
  auto save = [&]() { torch::save(w, "w.pt"); };
  // CHECK-NOTES: :[[@LINE-1]]:23: warning: 'torch::save' is given the DTensor 'w'
  // CHECK-NOTES: :[[@LINE-3]]:18: note: 'w' is a DTensor: it comes from distribute_tensor() here
  // CHECK-NOTES: :[[@LINE-3]]:23: note: no fix-it: meshguard::checkpoint::save is collective, and whether every rank runs this lambda is decided where it is called
  // CHECK-FIXES: {{^}}  auto save = [&]() { torch::save(w, "w.pt"); };{{$}}
  if (mesh.get_rank() == 0)
    save();
}

// Negative twin: a lambda saving a plain tensor.
void inLambdaPlain() {
  at::Tensor p = torch::ones({2});
  auto save = [&]() { torch::save(p, "p.pt"); };
  save();
}
