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

// While alive, the module's Shard(0) parameters are replaced by their
// all-gathered (Replicate) values, differentiable: the backward of the
// gather reduce-scatters each gradient back to Shard(0). Restores the
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
// batch as a Shard(0) DTensor on the same mesh.
template <typename ModuleHolder>
at::Tensor fully_sharded_forward(ModuleHolder& module, const at::Tensor& input) {
  GatheredParameters gathered(*module);
  return module->forward(input);
}

} // namespace meshguard
