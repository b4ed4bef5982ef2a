#pragma once

// The collective-consistency mode (docs/runtime/debug-collectives.md): off by
// default; MESHGUARD_DEBUG_COLLECTIVES=1 in the environment, or
// set_debug_collectives(true) on every rank, switches it on. Before each
// collective, explicit (dist::, guarded::) or implicit (full_tensor,
// redistribute, distribute_tensor, from_local(run_check), distribute_module,
// check_replicas, operators whose sharding needs communication), the ranks of
// the group compare what they are about to run (op, per-group sequence
// number, shapes, dtypes, placements, the caller's file:line) through the
// mesh's store. A difference, or a rank that does not arrive within
// MESHGUARD_DEBUG_TIMEOUT_S (default: the mesh's timeout), throws
// CollectiveMismatchError / CollectiveTimeoutError on every waiting rank,
// listing what each rank called and where. Off, it costs one branch.

namespace meshguard {

bool debug_collectives_enabled();
// Must be switched alike on every rank, between collectives.
void set_debug_collectives(bool enabled);

} // namespace meshguard
