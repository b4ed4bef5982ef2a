// Helpers of the multi-file checkpoint project (whole-program-checkpoint.test):
// declared here, defined in ckpt_utils.cpp, called from train.cpp.
#pragma once
#include <meshguard/meshguard.h>

namespace ckpt {
// Returns a DTensor (row-sharded on mesh).
at::Tensor make_weight(const meshguard::DeviceMesh &mesh);
// Returns a plain tensor: the full value of a DTensor.
at::Tensor gather(const at::Tensor &w);
// Saves its argument with torch::save.
void save_state(const at::Tensor &t, const std::string &path);
} // namespace ckpt
