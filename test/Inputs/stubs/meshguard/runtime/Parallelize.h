// Stub of include/meshguard/runtime/Parallelize.h and FullyShard.h for the
// check tests: tensor-parallel styles and FSDP-style sharding, all collective.
#pragma once
#include <meshguard/meshguard.h>

namespace meshguard {
struct ParallelStyle {
  virtual ~ParallelStyle() = default;
};
struct ColwiseParallel : ParallelStyle {
  std::optional<Placement> input_layouts; // default Replicate
};
struct RowwiseParallel : ParallelStyle {
  std::optional<Placement> input_layouts; // default Shard(-1) (Linear)
};
struct SequenceParallel : ParallelStyle {
  int64_t sequence_dim = 1;
};
struct PrepareModuleInput : ParallelStyle {
  std::optional<Placement> input_layouts;
  std::optional<Placement> desired_input_layouts;
};
void parallelize_module(torch::nn::Module &module, const DeviceMesh &mesh,
                        const ParallelStyle &style);
at::Tensor parallel_input(const torch::nn::Module &module,
                          const at::Tensor &input);
at::Tensor parallel_output(const torch::nn::Module &module,
                           const at::Tensor &output);
template <typename ModuleHolder>
at::Tensor parallel_forward(ModuleHolder &module, const at::Tensor &input) {
  return parallel_output(*module, module->forward(parallel_input(*module, input)));
}

void fully_shard(torch::nn::Module &module, const DeviceMesh &mesh);
void fully_shard(torch::nn::Module &module, const DeviceMesh &mesh,
                 int64_t mesh_dim);
class GatheredParameters {
public:
  explicit GatheredParameters(torch::nn::Module &module);
  ~GatheredParameters();
};
template <typename ModuleHolder>
at::Tensor fully_sharded_forward(ModuleHolder &module, const at::Tensor &input) {
  return module->forward(input);
}
} // namespace meshguard
