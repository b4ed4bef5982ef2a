#pragma once

// Helpers for tests that run as one rank of a meshguard-launch job.

#include <cstdlib>
#include <string>

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <meshguard/meshguard.h>

namespace meshguard {
namespace testing {

inline int64_t env_int(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr) {
    throw std::runtime_error(
        std::string(name) +
        " is not set: run this binary through scripts/meshguard-launch");
  }
  return std::atoll(v);
}

inline int64_t rank() {
  return env_int("RANK");
}

inline int64_t world_size() {
  return env_int("WORLD_SIZE");
}

// The 1-D mesh over every rank (created once per process).
inline DeviceMesh world_mesh() {
  static DeviceMesh mesh = init_device_mesh("cpu", {world_size()});
  return mesh;
}

inline at::Tensor full_of(std::vector<int64_t> shape, int64_t seed) {
  // Same values on every rank without communication.
  return at::arange(1, 1 + c10::multiply_integers(shape), at::kFloat)
      .reshape(shape)
      .mul_(0.5)
      .add_(seed);
}

#define MG_EXPECT_THROW_WITH(stmt, type, text)                       \
  do {                                                               \
    try {                                                            \
      stmt;                                                          \
      ADD_FAILURE() << "expected " #type " from " #stmt;             \
    } catch (const type& e) {                                        \
      EXPECT_NE(std::string(e.what()).find(text), std::string::npos) \
          << e.what();                                               \
    }                                                                \
  } while (0)

} // namespace testing
} // namespace meshguard
