#include "compat/OptimizerCompat.h"

#include <torch/version.h>

#if TORCH_VERSION_MAJOR < 2
#include <c10/util/C++17.h>
#endif

namespace meshguard {
namespace compat {

namespace {

auto key_of(const at::Tensor& param) {
#if TORCH_VERSION_MAJOR < 2
  return c10::guts::to_string(param.unsafeGetTensorImpl());
#else
  return static_cast<void*>(param.unsafeGetTensorImpl());
#endif
}

} // namespace

torch::optim::OptimizerParamState* find_param_state(
    torch::optim::Optimizer& optimizer,
    const at::Tensor& param) {
  auto it = optimizer.state().find(key_of(param));
  return it == optimizer.state().end() ? nullptr : it->second.get();
}

void set_param_state(
    torch::optim::Optimizer& optimizer,
    const at::Tensor& param,
    std::unique_ptr<torch::optim::OptimizerParamState> state) {
  optimizer.state()[key_of(param)] = std::move(state);
}

} // namespace compat
} // namespace meshguard
