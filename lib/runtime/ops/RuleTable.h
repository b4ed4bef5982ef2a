#pragma once

// The rule table: operator ("aten::mm" + "." + overload, "default" for the
// empty overload) -> RuleEntry. Filled once from the families' files.

#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include <ATen/core/dispatch/Dispatcher.h>

#include "ShardingRule.h"

namespace meshguard {
namespace ops {

using RuleTable = std::map<std::string, RuleEntry>;

// The table's name of an operator: "aten::mm.default", "aten::add.Tensor".
std::string entry_name(const c10::OperatorName& name);

// Every operator the dispatcher knew (with a schema) when the table was
// first built, by name: the overloads of each, for the families that read
// schemas (read once: a family asks for a few names out of thousands).
using OperatorsByName =
    std::unordered_map<std::string, std::vector<c10::OperatorHandle>>;
const OperatorsByName& operators_by_name();

// Built on first use; overloads are taken from the dispatcher's op list.
const RuleTable& rule_table();
// Users' rules (register_sharding, UserOps.cpp) first, then the table.
const RuleEntry* find_rule(const std::string& op_name);
const RuleEntry* find_user_rule(const std::string& op_name);
// Grows with every register_sharding: the kernel's memo of each op's rule
// starts anew.
uint64_t user_rules_generation();

// Each family adds its entries.
void add_pointwise_rules(RuleTable& table);
void add_matrix_rules(RuleTable& table);
void add_reduction_rules(RuleTable& table);
void add_view_rules(RuleTable& table);
// unsqueeze, squeeze and squeeze_ (SqueezeRules.cpp).
void add_squeeze_rules(RuleTable& table);
// index.Tensor, index_put, _index_put_impl (IndexRules.cpp).
void add_index_rules(RuleTable& table);
// GradScaler's _amp_foreach_non_finite_check_and_unscale_
// (AmpUnscaleRules.cpp).
void add_amp_unscale_rules(RuleTable& table);
void add_nn_rules(RuleTable& table);
void add_tensor_op_rules(RuleTable& table);
// view_copy & co.: their view's rule, the result copied (after add_view_rules).
void add_view_copy_rules(RuleTable& table);
// equal, is_same_size: a bool about whole tensors (PredicateRules.cpp).
void add_predicate_rules(RuleTable& table);
// select/slice/diagonal_scatter, index_reduce: every dim they do not work
// along.
void add_scatter_rules(RuleTable& table);
// ones_like & co.: replaces the pointwise entries (after add_pointwise_rules).
void add_create_like_rules(RuleTable& table);
// Free-dim families (FreeDims.h): ops along some dims (sort, scans,
// reductions, padding, FFT, ...) and batched ops (pooling, upsampling,
// convolution, normalization, attention, linear algebra).
void add_along_dim_rules(RuleTable& table);
void add_batch_rules(RuleTable& table);
// Batch norm: the channel dim (training), every other dim (evaluation).
void add_batch_norm_rules(RuleTable& table);
// Random fills, *_like factories and dropout: drawn whole, block kept.
void add_random_rules(RuleTable& table);
// The in-place and out= forms of every functional entry that has none of its
// own, derived from the schema (last: reads the other families' entries).
void add_derived_variants(RuleTable& table);
// The _foreach_ ops whose elementwise op has an entry (after the variants).
void add_foreach_rules(RuleTable& table);
// _fused_adam(w)(_): each parameter's block updated where it lies.
void add_fused_optimizer_rules(RuleTable& table);

// Shorthand for the families' strategy lists: R, P (a sum), S(dim).
namespace shorthand {
inline const Placement R = Replicate{};
inline const Placement P = Partial{ReduceOp::SUM};
inline Placement S(int64_t d) {
  return Shard{d};
}
} // namespace shorthand

} // namespace ops
} // namespace meshguard
