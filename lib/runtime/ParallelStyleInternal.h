#pragma once

// What fully_shard needs to know and change about the tensor-parallel styles
// that parallelize_module recorded on modules (Parallelize.cpp).

#include <optional>

#include <torch/nn/module.h>

#include <meshguard/runtime/DeviceMesh.h>

namespace meshguard {
namespace detail {

// The mesh dim the module's style computes on (0 on a 1-D mesh); nullopt
// for a module without a style.
std::optional<int64_t> parallel_style_mesh_dim(const torch::nn::Module& module);

// Every style in `root` recorded on the 1-D mesh `from` now runs on dim
// `dim` of the larger mesh `to` (fully_shard made its parameters 2-D). When
// one of them hands back local tensors (use_local_output, PyTorch's
// default), the model computes on local tensors between its layers: the
// styles then read a plain tensor as this rank's rows (Shard(0) on the
// other dim).
void move_parallel_styles(
    torch::nn::Module& root,
    const DeviceMesh& from,
    const DeviceMesh& to,
    int64_t dim);

// The dp dim of the 2-D mesh when `root`'s styles hand back local tensors
// (move_parallel_styles); nullopt otherwise. GatheredParameters then hands
// the parameters of modules without a style as plain tensors.
std::optional<int64_t> local_activations_dp_dim(const torch::nn::Module& root);

// Drops the DTensors the styles made of plain tensors during one forward
// under local activations (each is made once and shared by its readers).
void forget_plain_reads();

} // namespace detail
} // namespace meshguard
