// Stub of c10d's Store (libtorch) for meshguard's check tests.
#pragma once
#include <chrono>
#include <cstdint>
#include <string>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <vector>

namespace c10d {
class Store {
public:
  virtual ~Store() = default;
  virtual void set(const std::string &Key, const std::vector<uint8_t> &Value);
  virtual std::vector<uint8_t> get(const std::string &Key);
  virtual int64_t add(const std::string &Key, int64_t Value);
  virtual void wait(const std::vector<std::string> &Keys);
};
} // namespace c10d
