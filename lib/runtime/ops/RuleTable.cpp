#include "RuleTable.h"

#include <sstream>

#include <meshguard/runtime/ShardingRules.h>

#include "Internal.h"

namespace meshguard {
namespace ops {

Placement
aligned_shard(const Shape& in_shape, const Shape& out_shape, int64_t out_dim) {
  const int64_t d =
      out_dim - static_cast<int64_t>(out_shape.size() - in_shape.size());
  if (d < 0 || in_shape[d] != out_shape[out_dim]) {
    return Replicate{};
  }
  return Shard{d};
}

int64_t shard_offset(
    int64_t size,
    int64_t dim,
    const Placements& placements,
    const DeviceMesh& mesh) {
  int64_t offset = 0;
  for (size_t i = 0; i < placements.size(); ++i) {
    if (is_shard(placements[i], dim)) {
      const int64_t k = mesh.size(static_cast<int64_t>(i));
      const int64_t c = mesh.coordinate()[i];
      offset += detail::chunk_offset(size, k, c);
      size = detail::chunk_length(size, k, c);
    }
  }
  return offset;
}

std::string entry_name(const c10::OperatorName& name) {
  return name.name + "." +
      (name.overload_name.empty() ? std::string("default")
                                  : name.overload_name);
}

const OperatorsByName& operators_by_name() {
  static const OperatorsByName* ops = [] {
    auto& dispatcher = c10::Dispatcher::singleton();
    auto* out = new OperatorsByName();
    for (const auto& name : dispatcher.getAllOpNames()) {
      auto handle = dispatcher.findOp(name);
      if (handle && handle->hasSchema()) {
        (*out)[name.name].push_back(*handle);
      }
    }
    return out;
  }();
  return *ops;
}

const RuleTable& rule_table() {
  static const RuleTable* table = [] {
    auto* t = new RuleTable();
    add_pointwise_rules(*t);
    add_create_like_rules(*t);
    add_matrix_rules(*t);
    add_reduction_rules(*t);
    add_view_rules(*t);
    add_squeeze_rules(*t);
    add_view_copy_rules(*t);
    add_nn_rules(*t);
    add_tensor_op_rules(*t);
    add_along_dim_rules(*t);
    add_scatter_rules(*t);
    add_index_rules(*t);
    add_predicate_rules(*t);
    add_batch_rules(*t);
    add_batch_norm_rules(*t);
    add_random_rules(*t);
    add_derived_variants(*t);
    add_foreach_rules(*t);
    add_fused_optimizer_rules(*t);
    add_amp_unscale_rules(*t);
    return t;
  }();
  return *table;
}

const RuleEntry* find_rule(const std::string& op_name) {
  if (const RuleEntry* user = find_user_rule(op_name)) {
    return user;
  }
  const auto& table = rule_table();
  auto it = table.find(op_name);
  return it == table.end() ? nullptr : &it->second;
}

} // namespace ops

std::vector<std::string> sharding_rule_ops() {
  std::vector<std::string> out;
  for (const auto& kv : ops::rule_table()) {
    out.push_back(kv.first);
  }
  return out;
}

std::string sharding_rules_markdown() {
  // Overloads of one operator share a row when their strategies do.
  std::ostringstream os;
  os << "# Sharding rules: the operator table\n\n"
     << "Generated from the rule table (`lib/runtime/ops/`) by `meshguard_ops_doc`; a test checks that this\n"
     << "page matches the table. Do not edit by hand: run `build/bin/meshguard_ops_doc > "
        "docs/runtime/operator-table.md`.\n\n"
     << "Notation, per mesh dimension: `S(d)` Shard(d), `R` Replicate, `P(op)` Partial(op); operands in\n"
     << "argument order, `→` the output. An operand with a different placement is redistributed to the\n"
     << "cheapest strategy first (see operators.md). Any op also runs on all-Replicate operands.\n";
  std::vector<std::string> overloads;
  std::string row_op, row_strategies;
  auto flush = [&] {
    if (row_op.empty()) {
      return;
    }
    os << "| `" << row_op << "` | ";
    for (size_t i = 0; i < overloads.size(); ++i) {
      os << (i ? ", " : "") << overloads[i];
    }
    os << " | " << row_strategies << " |\n";
    overloads.clear();
  };
  std::map<
      std::string,
      std::vector<std::pair<std::string, const ops::RuleEntry*>>>
      by_family;
  for (const auto& kv : ops::rule_table()) {
    by_family[kv.second.family].emplace_back(kv.first, &kv.second);
  }
  size_t total = 0;
  for (const auto& fam : by_family) {
    os << "\n## " << fam.first << " (" << fam.second.size() << " overloads)\n\n"
       << "| operator | overloads | strategies |\n|---|---|---|\n";
    row_op.clear();
    for (const auto& entry : fam.second) {
      const auto dot = entry.first.rfind('.');
      const std::string op = entry.first.substr(0, dot);
      const std::string overload = entry.first.substr(dot + 1);
      if (op != row_op || entry.second->strategies != row_strategies) {
        flush();
        row_op = op;
        row_strategies = entry.second->strategies;
      }
      overloads.push_back(overload);
    }
    flush();
    total += fam.second.size();
  }
  os << "\n" << total << " operator overloads in all.\n";
  return os.str();
}

} // namespace meshguard
