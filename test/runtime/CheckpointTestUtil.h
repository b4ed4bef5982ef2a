#pragma once

// What the checkpoint rank tests share: the full tensors a saving side
// wrote with torch.save / pickle_save (a dict of name -> tensor), and the
// message of the c10::Error a call throws.

#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include <ATen/ATen.h>
#include <torch/csrc/jit/serialization/pickle.h>

namespace meshguard {
namespace testing {

inline std::map<std::string, at::Tensor> read_expected(
    const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> bytes(
      (std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::map<std::string, at::Tensor> out;
  for (const auto& kv : torch::jit::pickle_load(bytes).toGenericDict()) {
    out.emplace(kv.key().toStringRef(), kv.value().toTensor());
  }
  return out;
}

inline std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const c10::Error& e) {
    return e.what_without_backtrace();
  }
  return "(no error)";
}

} // namespace testing
} // namespace meshguard
