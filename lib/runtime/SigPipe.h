#pragma once

namespace meshguard {
namespace detail {

// A peer that dies mid-collective closes its sockets, and the next write to
// one raises SIGPIPE, which kills this rank instead of failing the
// collective with an error. Ignores it (once per process), unless the
// program handles it itself.
void ignore_sigpipe_once();

} // namespace detail
} // namespace meshguard
