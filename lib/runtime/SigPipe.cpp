#include "SigPipe.h"

#include <csignal>
#include <mutex>

// sigaction is POSIX's, declared by <signal.h>, not by <csignal>.
#include <signal.h> // NOLINT(modernize-deprecated-headers)

namespace meshguard {
namespace detail {

void ignore_sigpipe_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction current{};
    if (::sigaction(SIGPIPE, nullptr, &current) == 0 &&
        current.sa_handler == SIG_DFL) {
      ::signal(SIGPIPE, SIG_IGN);
    }
  });
}

} // namespace detail
} // namespace meshguard
