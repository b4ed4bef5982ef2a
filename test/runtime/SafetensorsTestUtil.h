#pragma once

// What the safetensors tests share: well-formed files of sample tensors, a
// file from a raw header text, scratch directories.

#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <ATen/ATen.h>
#include <c10/util/Exception.h>
#include <unistd.h>

#include "checkpoint/Safetensors.h"

namespace meshguard {
namespace testing {
namespace safetensors {

using namespace meshguard::checkpoint;
namespace fs = std::filesystem;

struct Sample {
  std::string name;
  at::Tensor value;
  std::vector<int64_t> offsets;
};

inline std::vector<Sample> samples() {
  return {
      {"w", at::arange(12, at::kFloat).reshape({3, 4}), {2, 0}},
      {"bf", at::arange(2, at::kFloat).to(at::kBFloat16), {0}},
      {"id", at::scalar_tensor(7, at::kLong), {}},
      {"mask", at::arange(5).remainder(2).to(at::kBool), {0}},
      {"empty", at::empty({0, 3}, at::kByte), {0, 0}},
      {"d", at::arange(4, at::kDouble).reshape({2, 2}), {0, 0}},
  };
}

// A well-formed file of `tensors` with DCP_SHARDING_INFO.
inline std::string file_of(const std::vector<Sample>& tensors) {
  std::vector<SafetensorsTensor> header;
  std::vector<std::pair<std::string, std::vector<int64_t>>> offsets;
  for (const Sample& s : tensors) {
    header.push_back({s.name, s.value.scalar_type(), s.value.sizes().vec()});
    offsets.emplace_back(s.name, s.offsets);
  }
  std::string out = safetensors_header_bytes(
      header, {{kShardingInfoKey, sharding_info_json(offsets)}});
  for (const Sample& s : tensors) {
    out.append(static_cast<const char*>(s.value.data_ptr()), s.value.nbytes());
  }
  return out;
}

// A file from a header text (its length set right unless `length` given).
inline std::string raw_file(
    const std::string& json,
    const std::string& data,
    std::optional<uint64_t> length = std::nullopt) {
  uint64_t n = length.value_or(json.size());
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) {
    out[i] = static_cast<char>(n & 0xFF);
    n >>= 8;
  }
  return out + json + data;
}

// Empty when the bytes parse into a sound header or fail with a c10::Error
// naming the file; else what went wrong.
inline uint64_t header_size(const std::string& file) {
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) {
    n = (n << 8) | static_cast<unsigned char>(file[i]);
  }
  return n;
}

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() /
        ("meshguard-st-" + std::to_string(::getpid()) + "-" +
         std::to_string(counter()++));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  static int& counter() {
    static int n = 0;
    return n;
  }
  void write(const std::string& name, const std::string& bytes) const {
    std::ofstream(path / name, std::ios::binary | std::ios::trunc) << bytes;
  }
};

inline std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const c10::Error& e) {
    return e.what_without_backtrace();
  }
  return "(no error)";
}

} // namespace safetensors
} // namespace testing
} // namespace meshguard
