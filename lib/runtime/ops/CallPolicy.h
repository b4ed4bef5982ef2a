#pragma once

// What the DTensor kernel does with a call of an operator that has a
// sharded or Partial operand: run it by its rule, or refuse it. One
// function, used by the kernel (ops/Dispatch.cpp) and walked over every
// operator the dispatcher knows by a test, so that "an op outside the table
// is refused" is checked for all of them, not a sample.

#include <string>

#include <ATen/core/dispatch/Dispatcher.h>

#include <meshguard/runtime/ShardingRules.h>

#include "RuleTable.h"

namespace meshguard {
namespace ops {

struct ShardedCallDecision {
  ShardedCall kind = ShardedCall::kRefused;
  std::string name; // "aten::mm.default"
  const RuleEntry* entry = nullptr; // set for kRule
};

ShardedCallDecision sharded_call(const c10::OperatorHandle& op);

// A CompositeImplicitAutograd backward helper with a rule (e.g.
// value_selecting_reduction_backward): its decomposition makes a plain
// factory tensor from grad.options(), which then meets DTensors. The kernel
// is registered for it so that the rule runs it; autograd calls it with
// grad mode off (no double backward through it).
bool kernel_replaces_decomposition(const c10::OperatorHandle& op);

} // namespace ops
} // namespace meshguard
