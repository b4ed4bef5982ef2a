#include "WorkWait.h"

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <sstream>
#include <stdexcept>
#include <string>

#include <meshguard/runtime/Errors.h>

#include "TransportFailure.h"

namespace meshguard {
namespace detail {

namespace {

// Gloo's transport thread failed on a message longer than this rank's
// buffer (TransportFailure.h): the collective cannot finish.
[[noreturn]] void fail_longer_message(
    const c10::intrusive_ptr<c10d::ProcessGroup>& pg,
    const char* op) {
  keep_forever(pg);
  const std::string gloo = last_transport_failure();
  std::string sizes;
  const auto dot = gloo.find("op.nbytes. ");
  if (dot != std::string::npos) {
    sizes = gloo.substr(dot + 11);
    const auto vs = sizes.find(" vs ");
    if (vs != std::string::npos) {
      // "1000 vs 4" ends the line in libtorch 1.13's Gloo; 2.x's adds
      // ". Received data size doesn't match ...".
      const std::string theirs = sizes.substr(vs + 4);
      sizes = ": a message of " + sizes.substr(0, vs) +
          " bytes arrived for a " +
          theirs.substr(0, theirs.find_first_not_of("0123456789")) +
          "-byte receive buffer";
    }
  }
  throw CollectiveMismatchError(
      std::string(op) +
      ": the ranks of the group passed tensors of different sizes" + sizes +
      " (Gloo: " + gloo.substr(0, gloo.find('\n')) +
      "). Every rank must pass the same shapes to a collective. This process group can no longer be used (its "
      "transport stopped); MESHGUARD_CHECK_SIZES=1 refuses such a collective before it starts and keeps the group "
      "usable, and MESHGUARD_DEBUG_COLLECTIVES=1 also names each rank's call site.");
}

bool completed(const c10::intrusive_ptr<c10d::Work>& work) {
  try {
    return work->isCompleted();
  } catch (const std::exception&) {
    return true;
  }
}

// Waits in slices so that a failed transport thread (which never completes
// the work) is noticed at once; a collective shorter than a slice pays
// nothing for it.
void wait_cpu(
    const c10::intrusive_ptr<c10d::ProcessGroup>& pg,
    const c10::intrusive_ptr<c10d::Work>& work,
    std::chrono::milliseconds timeout,
    const char* op) {
  constexpr std::chrono::milliseconds kSlice{50};
  const uint64_t failures_before = transport_failure_count();
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left <= kSlice) {
      work->wait(std::max(left, std::chrono::milliseconds(1)));
      return;
    }
    try {
      work->wait(kSlice);
      return;
    } catch (const std::exception&) {
      if (completed(work)) {
        // Done since the slice ran out (a race, not a timeout): returns, or
        // throws the collective's own error.
        work->wait(kSlice);
        return;
      }
      if (transport_failure_count() != failures_before) {
        fail_longer_message(pg, op);
      }
    }
  }
}

} // namespace

void wait_for_work(
    const c10::intrusive_ptr<c10d::ProcessGroup>& pg,
    const c10::intrusive_ptr<c10d::Work>& work,
    bool cuda,
    std::chrono::milliseconds timeout,
    const char* op) {
  if (cuda) {
    // WorkNCCL::wait(timeout) polls the host every millisecond until done;
    // without one the current stream waits for NCCL's, and the group's
    // Options::timeout (NCCL's watchdog) still bounds a hang.
    work->wait();
  } else {
    try {
      wait_cpu(pg, work, timeout, op);
    } catch (const Error&) {
      throw;
    } catch (const std::exception& e) {
      const std::string what = e.what();
      if (what.find("imed out") != std::string::npos) {
        // Work::wait's "Operation timed out!" or Gloo's own recv timeout.
        std::ostringstream os;
        os << op << ": the collective did not complete within "
           << std::chrono::duration<double>(timeout).count()
           << " s (MESHGUARD_TIMEOUT_S; " << what.substr(0, what.find('\n'))
           << "): a rank of the group did not call it, called another collective, or is stuck in other work. "
              "Run every rank with MESHGUARD_DEBUG_COLLECTIVES=1 to see what each rank called, and where.";
        if (std::getenv("MESHGUARD_CHECK_SIZES") == nullptr) {
          // libtorch 2.x's Gloo can also hang, instead of aborting, on
          // tensors of different sizes.
          os << " Ranks that passed tensors of different sizes can hang too: MESHGUARD_CHECK_SIZES=1 checks that "
                "first.";
        }
        throw CollectiveTimeoutError(os.str());
      }
      const bool peer_gone = what.find("by peer") != std::string::npos ||
          what.find("Broken pipe") != std::string::npos ||
          what.find("Socket closed") != std::string::npos;
      if (!peer_gone || std::getenv("MESHGUARD_CHECK_SIZES") != nullptr) {
        throw;
      }
      // A peer that got a longer message than its buffer failed (it says so
      // itself, or it ended); this rank only sees the connection drop.
      std::throw_with_nested(std::runtime_error(
          what +
          " (the peer's process ended or its group stopped. If it reported 'op.preamble.length <= "
          "op.nbytes', the ranks passed tensors of different sizes to this collective: run every rank "
          "with MESHGUARD_CHECK_SIZES=1 to get an error naming them)"));
    }
  }
}

} // namespace detail
} // namespace meshguard
