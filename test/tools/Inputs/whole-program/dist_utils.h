// Helpers of the multi-file test project (whole-program.test): declared
// here, defined in dist_utils.cpp, called from train.cpp.
#pragma once
#include <meshguard/meshguard.h>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/torch.h>

namespace utils {
// The shape of DDP's _sync_module_states: a raw broadcast of parameters().
void broadcast_parameters(torch::nn::Module &model, c10d::ProcessGroup &pg);
// Returns a plain tensor.
at::Tensor make_local(const at::Tensor &t);
// Its parameter alone decides whether the collective has a mesh.
void sync(const at::Tensor &grad);
// Mixes its DTensor argument with a plain tensor.
at::Tensor add_noise(const at::Tensor &t);

// Negative twins: fine whatever they are given.
void sync_on(const at::Tensor &grad, const meshguard::DeviceMesh &mesh);
at::Tensor make_replicated(const at::Tensor &t,
                           const meshguard::DeviceMesh &mesh);
void broadcast_locals(c10d::ProcessGroup &pg);
} // namespace utils
