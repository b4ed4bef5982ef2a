#include <meshguard/runtime/Checkpoint.h>

#include <torch/nn/module.h>

namespace meshguard {
namespace checkpoint {

std::map<std::string, at::Tensor> module_state(
    const torch::nn::Module& module,
    const std::string& prefix) {
  std::map<std::string, at::Tensor> out;
  for (const auto& p : module.named_parameters(/*recurse=*/true)) {
    out.emplace(prefix + p.key(), p.value());
  }
  for (const auto& b : module.named_buffers(/*recurse=*/true)) {
    out.emplace(prefix + b.key(), b.value());
  }
  return out;
}

} // namespace checkpoint
} // namespace meshguard
