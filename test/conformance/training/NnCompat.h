#pragma once

// The two libtorch ops the llama model calls that libtorch 1.13 does not
// have (at::scaled_dot_product_attention came with 2.0, at::rms_norm with
// 2.4). On 2.x they are libtorch's own, as PyTorch's modules call them; on
// 1.13 they throw, and CMakeLists.txt leaves the llama configs out of the
// side by side there.

#include <ATen/ATen.h>
#include <c10/util/Exception.h>
#include <torch/version.h>

namespace training_compat {

inline at::Tensor rms_norm(
    const at::Tensor& x,
    int64_t dim,
    const at::Tensor& weight,
    double eps) {
#if TORCH_VERSION_MAJOR > 2 || \
    (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
  return at::rms_norm(x, {dim}, weight, eps);
#else
  (void)x, (void)dim, (void)weight, (void)eps;
  TORCH_CHECK(false, "the llama model needs libtorch >= 2.4 (at::rms_norm)");
#endif
}

inline at::Tensor causal_attention(
    const at::Tensor& q,
    const at::Tensor& k,
    const at::Tensor& v) {
#if TORCH_VERSION_MAJOR >= 2
  return at::scaled_dot_product_attention(
      q, k, v, /*attn_mask=*/{}, /*dropout_p=*/0.0, /*is_causal=*/true);
#else
  (void)q, (void)k, (void)v;
  TORCH_CHECK(
      false,
      "the llama model needs libtorch >= 2.0 (at::scaled_dot_product_attention)");
#endif
}

} // namespace training_compat
