#pragma once

// libtorch's optimizer state map changed its key: the parameter's
// TensorImpl* printed as a string in 1.13, the pointer itself in 2.x.

#include <memory>

#include <torch/optim/optimizer.h>

namespace meshguard {
namespace compat {

// `param`'s state in `optimizer`, or nullptr before its first step.
torch::optim::OptimizerParamState* find_param_state(
    torch::optim::Optimizer& optimizer,
    const at::Tensor& param);

void set_param_state(
    torch::optim::Optimizer& optimizer,
    const at::Tensor& param,
    std::unique_ptr<torch::optim::OptimizerParamState> state);

} // namespace compat
} // namespace meshguard
