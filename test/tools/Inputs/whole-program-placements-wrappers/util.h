#pragma once
#include <meshguard/meshguard.h>
#include <meshguard/runtime/Parallelize.h>

namespace util {
at::Tensor local(const at::Tensor &t);
at::Tensor row_parallel(const meshguard::DeviceMesh &mesh, const at::Tensor &x,
                        const at::Tensor &w);
at::Tensor encode(torch::nn::Linear &encoder, const at::Tensor &x);
} // namespace util
