#pragma once

// Ranks that pass tensors of different sizes to one Gloo collective crash:
// Gloo's transport thread meets a message longer than the buffer it posted,
// throws gloo::EnforceNotMet where nothing catches it, and std::terminate
// aborts the rank (its peers see "Connection reset by peer"). So, before a
// CPU collective, the ranks of the group exchange a fixed-size header
// describing their tensors and all refuse the collective when they differ.
// That exchange is a collective of its own (about 100-200 us on loopback
// Gloo, 2-4x a small collective; docs/runtime/benchmarks.md), so it runs only
// when MESHGUARD_CHECK_SIZES=1, like the replica check.

#include <chrono>
#include <vector>

#include <ATen/Tensor.h>
#include <c10/util/intrusive_ptr.h>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>

namespace meshguard {
namespace detail {

// Throws CollectiveMismatchError on every rank of `pg`, naming each rank's
// sizes, when their `tensors` differ in count, elements, bytes or dtypes.
// `op` names the collective in the message. A no-op for a group of one, for
// CUDA tensors (NCCL does not crash on it, and the exchange would cost a
// device sync) and unless MESHGUARD_CHECK_SIZES=1 (set alike on every rank).
void check_same_sizes(
    const c10::intrusive_ptr<c10d::ProcessGroup>& pg,
    const std::vector<at::Tensor>& tensors,
    const char* op,
    std::chrono::milliseconds timeout);

} // namespace detail
} // namespace meshguard
