#pragma once

// Waiting for a c10d collective to finish, with errors that say what went
// wrong: a timeout names MESHGUARD_TIMEOUT_S and the debug mode, a Gloo
// transport stopped by a longer message than the receive buffer becomes a
// CollectiveMismatchError, a peer that went away says why it might have.
// Not a version difference (Work::wait is the same in libtorch 1.13 and
// 2.x), so it lives beside compat/ rather than in it.

#include <chrono>

#include <c10/util/intrusive_ptr.h>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>

namespace meshguard {
namespace detail {

// Waits for `work`, one of `pg`'s collectives named `op`, at most `timeout`.
// On CPU it waits in 50 ms slices so that a stopped Gloo transport thread
// (which never completes the work) is noticed at once; on CUDA the current
// stream waits for NCCL's and the group's watchdog bounds a hang.
void wait_for_work(
    const c10::intrusive_ptr<c10d::ProcessGroup>& pg,
    const c10::intrusive_ptr<c10d::Work>& work,
    bool cuda,
    std::chrono::milliseconds timeout,
    const char* op);

} // namespace detail
} // namespace meshguard
