#pragma once

// FSDP-style sharding, as PyTorch's fully_shard (FSDP2): every parameter is
// kept Shard(0) on a data-parallel mesh (so its gradient and the optimizer's
// state are too), gathered for compute and its gradient reduce-scattered.
// libtorch's C++ modules have no forward hooks, so the gather happens in
// fully_sharded_forward(module, x) (docs/runtime/parallel.md).

#include <ATen/Tensor.h>
#include <torch/nn/module.h>

#include <meshguard/runtime/DeviceMesh.h>

namespace meshguard {

// Every plain parameter of `module` (recursively) becomes a Shard(0)
// DTensor on the 1-D `mesh` (rank 0's values win). A mesh that is not 1-D
// or a parameter that already is a DTensor is a PlacementError, raised
// before any parameter changes. Collective.
void fully_shard(torch::nn::Module& module, const DeviceMesh& mesh);

// FSDP on dim `mesh_dim` ("dp") of a 1-D or 2-D mesh. On a 2-D mesh the
// parameters that parallelize_module put on the other dim ("tp",
// mesh_dim_mesh(mesh, 1 - mesh_dim)) become 2-D DTensors: the TP placement
// on tp, and on dp Shard of the first tensor dim TP leaves whole (Replicate
// when TP shards the only one, a column-parallel bias); plain parameters
// get Shard(0) on dp, Replicate on tp. The styles then run on the tp dim of
// the 2-D mesh (docs/runtime/parallel.md). A DTensor parameter on any other
// mesh, a Partial one, or a mesh of more than 2 dims is a PlacementError,
// raised before any parameter changes. Collective.
void fully_shard(
    torch::nn::Module& module,
    const DeviceMesh& mesh,
    int64_t mesh_dim);

// While alive, the module's parameters are replaced by their values made
// Replicate on every mesh dim but a tensor-parallel style's, differentiable:
// the backward reduce-scatters each gradient back to the parameter's
// placements (a parameter Replicate on dp gets its gradient all-reduced
// there). As FSDP2's flat buffer, the parameters of one dtype gather in one
// all-gather on dp and their gradients in one reduce-scatter. Restores the
// sharded parameters when destroyed.
class GatheredParameters {
 public:
  explicit GatheredParameters(torch::nn::Module& module);
  ~GatheredParameters();
  GatheredParameters(const GatheredParameters&) = delete;
  GatheredParameters& operator=(const GatheredParameters&) = delete;

 private:
  struct Entry {
    torch::nn::Module* owner;
    std::string name;
    at::Tensor sharded;
  };
  std::vector<Entry> entries_;
};

// module->forward(input) with the parameters gathered. The input is the
// batch as a DTensor on the same mesh, Shard(0) on dp (Replicate on tp).
template <typename ModuleHolder>
at::Tensor fully_sharded_forward(
    ModuleHolder& module,
    const at::Tensor& input) {
  GatheredParameters gathered(*module);
  return module->forward(input);
}

} // namespace meshguard
