#pragma once

// Where the user called a runtime entry point, for the collective-consistency
// mode's messages (DebugCollectives.h). Public functions that may communicate
// take it as a last, defaulted parameter: callers never write it, and
// __builtin_FILE()/__builtin_LINE() in a default argument are evaluated at
// the caller's line (GCC and Clang; C++20's std::source_location does the
// same). One parameter rather than file and line keeps signatures short.

namespace meshguard {

struct CallSite {
  const char* file = nullptr;
  int line = 0;

  static constexpr CallSite here(
      const char* file = __builtin_FILE(),
      int line = __builtin_LINE()) {
    return CallSite{file, line};
  }
  bool known() const {
    return file != nullptr;
  }
};

} // namespace meshguard
