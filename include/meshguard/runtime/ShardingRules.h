#pragma once

// The runtime's sharding-rule table, for docs and tests: which operators
// run on sharded/Partial DTensors (others need all-Replicate operands).

#include <string>
#include <vector>

namespace meshguard {

// "aten::mm.default", "aten::add.Tensor", ... sorted.
std::vector<std::string> sharding_rule_ops();

// docs/runtime/operator-table.md, generated from the table.
std::string sharding_rules_markdown();

} // namespace meshguard
