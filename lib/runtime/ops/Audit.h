#pragma once

// The audit mode (MESHGUARD_AUDIT=1, off by default): a sharding rule that
// gives a wrong placement gives a wrong number silently, so for a sample of
// the ops run on sharded or Partial DTensors the mode gathers the operands,
// runs the op on the full tensors too, gathers the result and compares. A
// difference is an error naming the op, the placements and the caller.
// docs/runtime/audit.md. Off, its whole cost is one branch per op.
//
//   MESHGUARD_AUDIT=1          audit (every op by default)
//   MESHGUARD_AUDIT_EVERY=N    only every Nth op on sharded/Partial operands
//   MESHGUARD_AUDIT_OPS=a,b    only these ops ("aten::mm" or
//                              "aten::mm.default")

#include <functional>

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>

namespace meshguard {
namespace ops {

// Read once, when the library loads.
extern const bool audit_enabled;

inline bool audit_on() {
  return audit_enabled;
}

// How many ops the audit has compared in this process (the tests read it).
int64_t audited_ops();

// Runs `run` (the op by its sharding rule, leaving the results on the stack
// where its arguments were) and, when this call is sampled, compares its
// results with the op on the full tensors; throws when they differ. Every
// rank must call it for the same ops in the same order (the gathers are
// collectives), as it must run the ops themselves.
void audited_run(
    const c10::OperatorHandle& op,
    torch::jit::Stack* stack,
    size_t args_begin,
    const std::function<void()>& run);

} // namespace ops
} // namespace meshguard
