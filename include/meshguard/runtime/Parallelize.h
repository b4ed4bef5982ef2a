#pragma once

// Tensor parallelism as PyTorch's torch.distributed.tensor.parallel:
// parallelize_module(module, mesh, plan) shards the parameters of the
// torch::nn::Linear and torch::nn::Embedding submodules that the plan names
// (ColwiseParallel, RowwiseParallel) over a 1-D mesh, replicates those of
// SequenceParallel modules, records PrepareModuleInput/Output on any
// module, and parallel_forward applies the styles' input and output layouts
// around a module's forward.
// libtorch's C++ modules have no forward hooks, so where PyTorch's hooks
// convert inputs and outputs, a C++ model calls parallel_forward(fc, x)
// instead of fc(x) (docs/runtime/parallel.md).

#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <ATen/Tensor.h>
#include <torch/nn/module.h>

#include <meshguard/runtime/DeviceMesh.h>
#include <meshguard/runtime/Placement.h>

namespace meshguard {

// Linear: weight and bias Shard(0) (output features); Embedding: weight
// Shard(1) (embedding dim). Input redistributed to Replicate; output
// Shard(-1), redistributed to output_layouts.
struct ColwiseParallel {
  std::optional<Placement>
      input_layouts; // how a plain input is laid out; default Replicate
  std::optional<Placement> output_layouts; // default Shard(-1)
  bool use_local_output = true; // return the local tensor, not the DTensor
};

// Linear: weight Shard(1) (input features), bias Replicate, input
// redistributed to Shard(-1); Embedding: weight Shard(0) (rows), input
// Replicate. The output (a Partial sum) is redistributed to output_layouts.
struct RowwiseParallel {
  std::optional<Placement>
      input_layouts; // default Shard(-1) (Linear), Replicate (Embedding)
  std::optional<Placement> output_layouts; // default Replicate
  bool use_local_output = true;
};

// Sequence parallelism for modules that compute each position on its own
// (LayerNorm, Dropout): parameters Replicate; the input sharded on
// sequence_dim (a plain input is read as this rank's positions, a DTensor
// redistributed to it); the output stays sharded there.
struct SequenceParallel {
  int64_t sequence_dim = 1;
  bool use_local_output = false;
};

// The input conversion alone, for any module with one tensor input: a
// plain input is read as input_layouts (nullopt: the input passes as it
// is), then redistributed to desired_input_layouts (default: the same).
// Parameters are left alone.
struct PrepareModuleInput {
  std::optional<Placement> input_layouts;
  std::optional<Placement> desired_input_layouts;
  bool use_local_output = false; // the forward gets the local tensor
};

// The output conversion alone: the output (a plain one read as
// output_layouts) redistributed to desired_output_layouts. Parameters are
// left alone.
struct PrepareModuleOutput {
  Placement output_layouts = Replicate{};
  Placement desired_output_layouts = Replicate{};
  bool use_local_output = true;
};

using ParallelStyle = std::variant<
    ColwiseParallel,
    RowwiseParallel,
    SequenceParallel,
    PrepareModuleInput,
    PrepareModuleOutput>;

// Submodule name (dotted, as in named_modules(); "" is the module itself)
// -> style.
using ParallelizePlan = std::vector<std::pair<std::string, ParallelStyle>>;

// Shards the planned submodules' parameters over `mesh` (1-D: for one
// dimension of a larger mesh pass mesh_dim_mesh(mesh, dim), PyTorch's
// mesh["tp"]) and records each style on its module. A name that is not a
// submodule, a module that is neither Linear nor Embedding, a mesh that is
// not 1-D or a parameter that already is a DTensor is an error that says so,
// before any parameter changes. Collective.
void parallelize_module(
    torch::nn::Module& module,
    const DeviceMesh& mesh,
    const ParallelizePlan& plan);
void parallelize_module(
    torch::nn::Module& module,
    const DeviceMesh& mesh,
    const ParallelStyle& style);

// The 1-D mesh of this rank's group along `dim` of `mesh` (its process
// group, no new communicator).
DeviceMesh mesh_dim_mesh(const DeviceMesh& mesh, int64_t dim);

// The style's input conversion: a plain tensor becomes a DTensor with the
// style's input_layouts (from_local, no check), then it is redistributed to
// the layout the style computes with. A module without a style: unchanged.
at::Tensor parallel_input(
    const torch::nn::Module& module,
    const at::Tensor& input);
// The style's output conversion: redistributed to output_layouts, then the
// local tensor when use_local_output.
at::Tensor parallel_output(
    const torch::nn::Module& module,
    const at::Tensor& output);

// module->forward(x) between parallel_input and parallel_output.
template <typename ModuleHolder>
at::Tensor parallel_forward(ModuleHolder& module, const at::Tensor& input) {
  return parallel_output(
      *module, module->forward(parallel_input(*module, input)));
}

} // namespace meshguard
