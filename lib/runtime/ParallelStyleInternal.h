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
// `dim` of the larger mesh `to` (fully_shard made its parameters 2-D).
void move_parallel_styles(
    torch::nn::Module& root,
    const DeviceMesh& from,
    const DeviceMesh& to,
    int64_t dim);

} // namespace detail
} // namespace meshguard
