#pragma once

// The rule table: operator ("aten::mm" + "." + overload, "default" for the
// empty overload) -> RuleEntry. Filled once from the families' files.

#include <map>
#include <string>

#include "ShardingRule.h"

namespace meshguard {
namespace ops {

using RuleTable = std::map<std::string, RuleEntry>;

// Built on first use; overloads are taken from the dispatcher's op list.
const RuleTable& rule_table();
const RuleEntry* find_rule(const std::string& op_name);

// Each family adds its entries.
void add_pointwise_rules(RuleTable& table);
void add_matrix_rules(RuleTable& table);
void add_reduction_rules(RuleTable& table);
void add_view_rules(RuleTable& table);
void add_nn_rules(RuleTable& table);

} // namespace ops
} // namespace meshguard
