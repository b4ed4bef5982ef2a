// A project whose helpers call helpers of a third file
// (whole-program-one-pass.test): top.cpp -> mid.cpp -> low.cpp.
#pragma once
#include <meshguard/meshguard.h>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/torch.h>

namespace low {
// The collective: its mesh comes only from the parameter.
void reduce(const at::Tensor &t);
// Fine whatever it is given.
void reduce_on(const at::Tensor &t, const meshguard::DeviceMesh &mesh);
// Mixes its parameter with a plain tensor.
at::Tensor noise(const at::Tensor &t);
// A raw process-group broadcast of its tensor.
void raw_broadcast(c10d::ProcessGroup &pg, const at::Tensor &t);
} // namespace low

namespace mid {
void forward(const at::Tensor &g);
void forward_on(const at::Tensor &g, const meshguard::DeviceMesh &mesh);
at::Tensor jitter(const at::Tensor &g);
void send(c10d::ProcessGroup &pg, const at::Tensor &g);
} // namespace mid
