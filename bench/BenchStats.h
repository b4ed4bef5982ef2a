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
  char buf[32];
  if (bytes >= (1 << 20)) {
    std::snprintf(
        buf, sizeof buf, "%lld MiB", static_cast<long long>(bytes >> 20));
  } else if (bytes >= (1 << 10)) {
    std::snprintf(
        buf, sizeof buf, "%lld KiB", static_cast<long long>(bytes >> 10));
  } else {
    std::snprintf(buf, sizeof buf, "%lld B", static_cast<long long>(bytes));
  }
  return buf;
}

} // namespace bench
} // namespace meshguard
