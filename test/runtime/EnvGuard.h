#pragma once

// Sets (or, with nullptr, unsets) an environment variable for one scope.

#include <cstdlib>
#include <optional>
#include <string>

namespace meshguard {
namespace testing {

struct EnvGuard {
  std::string name;
  std::optional<std::string> old;
  EnvGuard(const std::string& n, const char* value) : name(n) {
    if (const char* v = std::getenv(n.c_str())) {
      old = v;
    }
    if (value) {
      ::setenv(n.c_str(), value, 1);
    } else {
      ::unsetenv(n.c_str());
    }
  }
  EnvGuard(const EnvGuard&) = delete;
  EnvGuard& operator=(const EnvGuard&) = delete;
  ~EnvGuard() {
    if (old) {
      ::setenv(name.c_str(), old->c_str(), 1);
    } else {
      ::unsetenv(name.c_str());
    }
  }
};

} // namespace testing
} // namespace meshguard
