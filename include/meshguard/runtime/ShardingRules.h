#pragma once

// The runtime's sharding-rule table, for docs and tests: which operators
// run on sharded/Partial DTensors (others need all-Replicate operands).

#include <string>
#include <vector>

#include <ATen/core/operator_name.h>

namespace meshguard {

// "aten::mm.default", "aten::add.Tensor", ... sorted.
std::vector<std::string> sharding_rule_ops();

// docs/runtime/operator-table.md, generated from the table.
std::string sharding_rules_markdown();

// lib/Analysis/Placements/OperatorRules.def: per aten operator, the kernel's
// policy and what its rules do with Shard and Partial operands, for the
// static analysis.
std::string sharding_rules_analysis_table();

// What the DTensor kernel does with a call of the operator `name` that has
// a sharded or Partial DTensor operand (all-Replicate operands run any op):
// run it by its sharding rule; nothing, because the op decomposes into
// other ops before it reaches the kernel (CompositeImplicitAutograd); or
// refuse it with an error naming the op. Throws for an unknown operator.
enum class ShardedCall { kRule, kDecomposes, kRefused };
ShardedCall sharded_call_policy(const c10::OperatorName& name);

} // namespace meshguard
