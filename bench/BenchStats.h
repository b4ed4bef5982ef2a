#pragma once

// Small helpers the runtime benchmarks share: the median of a sample and a
// byte count as people read it.

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace meshguard {
namespace bench {

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

inline std::string human(int64_t bytes) {
  if (bytes >= (1 << 20)) {
    return std::to_string(bytes >> 20) + " MiB";
  }
  if (bytes >= (1 << 10)) {
    return std::to_string(bytes >> 10) + " KiB";
  }
  return std::to_string(bytes) + " B";
}

} // namespace bench
} // namespace meshguard
