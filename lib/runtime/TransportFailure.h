#pragma once

// Ranks that pass tensors of different sizes to one Gloo collective: the
// rank whose posted buffer is shorter than the message it receives fails a
// GLOO_ENFORCE on Gloo's transport (event-loop) thread, where nothing
// catches it, and std::terminate used to abort the whole process. A
// terminate handler recognises that one failure, records it and parks the
// transport thread for good instead, so the process lives: the collective
// waiting on it (compat's wait, which polls for this) throws a catchable
// CollectiveMismatchError naming both sizes. The group whose transport
// stopped cannot be used again; it is kept alive forever, since its
// destructor would join the parked thread.

#include <cstdint>
#include <string>

#include <c10/util/intrusive_ptr.h>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>

namespace meshguard {
namespace detail {

// Installs the handler once per process (it chains to the previous one for
// every other reason to terminate).
void catch_transport_failures_once();

// How many transport threads have failed so far.
uint64_t transport_failure_count();

// The last failure's Gloo message ("... op.preamble.length <= op.nbytes.
// 4000 vs 16").
std::string last_transport_failure();

// Never destroys `pg` (see above).
void keep_forever(const c10::intrusive_ptr<c10d::ProcessGroup>& pg);

} // namespace detail
} // namespace meshguard
