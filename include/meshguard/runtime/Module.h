#pragma once

// distribute_module / check_fully_distributed: the seed's "FSDP/TP wrapping
// was incomplete" case. libtorch modules keep parameters both in the
// registry (named_parameters) and, for built-in layers, in public members
// (LinearImpl::weight): both are replaced. A custom module that caches a
// parameter in its own member must re-read it after distribute_module, e.g.
// with named_parameters() (see docs/runtime/module.md).

#include <functional>
#include <memory>
#include <string>

#include <ATen/Tensor.h>
#include <torch/nn/module.h>

#include <meshguard/runtime/CallSite.h>
#include <meshguard/runtime/DeviceMesh.h>
#include <meshguard/runtime/Placement.h>

namespace meshguard {

// Placements for the parameter `name` (dotted, as in named_parameters()).
using PartitionFn = std::function<Placements(
    const std::string& name,
    const at::Tensor& param,
    const DeviceMesh& mesh)>;

// Every parameter (recursively) becomes a DTensor with the placements that
// partition_fn gives (default: Replicate on every mesh dimension), and,
// as PyTorch's distribute_module does, every buffer a Replicate DTensor
// (BatchNorm's running statistics: its training steps update them in place,
// the same on every rank). Parameters and buffers that already are DTensors
// are left alone. Collective.
void distribute_module(
    torch::nn::Module& module,
    const DeviceMesh& mesh,
    const PartitionFn& partition_fn = nullptr,
    CallSite where = CallSite::here());

// Throws NotDistributedError listing every parameter that is still a plain
// tensor.
void check_fully_distributed(const torch::nn::Module& module);

} // namespace meshguard
