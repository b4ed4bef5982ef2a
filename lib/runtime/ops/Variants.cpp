// The in-place and out= forms of an op follow from its functional rule, as
// PyTorch's autogen.py derives them: one place, read from the schemas, not a
// rule per overload.
//  - `foo_.ov` (writes self, same arguments as `foo.ov`): the functional
//    rule, with self keeping its placement (the propagator's Fixed::written).
//  - `foo.out` & co. (the functional arguments, then kwarg-only written
//    Tensor arguments, one per result): the functional rule on the leading
//    arguments, each out tensor keeping its placement (Fixed::outputs); the
//    local op writes into the out tensors' local blocks.
// View rules compute their result with run_local and derive neither form (a
// view's self changes its metadata, not its values; its rule pairs
// placements for its own output), and rules that replicate every operand
// (nonzero, masked_select) no out= form.

#include <unordered_map>
#include <vector>

#include <ATen/core/dispatch/Dispatcher.h>

#include "RuleTable.h"

namespace meshguard {
namespace ops {

namespace {

bool same_argument(const c10::Argument& a, const c10::Argument& b) {
  return a.name() == b.name() && *a.type() == *b.type() &&
      a.kwarg_only() == b.kwarg_only();
}

bool writes(const c10::Argument& a) {
  return a.alias_info() != nullptr && a.alias_info()->isWrite();
}

size_t tensor_returns(const c10::FunctionSchema& schema) {
  size_t n = 0;
  for (const auto& r : schema.returns()) {
    n += r.type()->kind() == c10::TypeKind::TensorType;
  }
  return n == schema.returns().size() ? n : SIZE_MAX;
}

// The functional name an in-place name belongs to: add_ -> add,
// __ilshift__ -> __lshift__; "" for a name that is not in-place.
std::string functional_of_inplace(const std::string& name) {
  const std::string dunder = "aten::__i";
  if (name.rfind(dunder, 0) == 0 && name.size() > dunder.size() + 2) {
    return "aten::__" + name.substr(dunder.size());
  }
  if (name.size() > 7 && name.back() == '_' && name[name.size() - 2] != '_') {
    return name.substr(0, name.size() - 1);
  }
  return "";
}

// How many trailing arguments are out tensors (kwarg-only, written, Tensor,
// one per result); 0 when the schema is not an out= form.
size_t trailing_out_args(const c10::FunctionSchema& schema) {
  const auto& args = schema.arguments();
  size_t k = 0;
  while (k < args.size() && writes(args[args.size() - 1 - k]) &&
         args[args.size() - 1 - k].kwarg_only() &&
         args[args.size() - 1 - k].type()->kind() ==
             c10::TypeKind::TensorType) {
    ++k;
  }
  return k > 0 && tensor_returns(schema) == k ? k : 0;
}

// Whether `base` is the functional form of `variant` whose first
// `base.arguments().size()` arguments it shares.
bool functional_form_of(
    const c10::FunctionSchema& base,
    const c10::FunctionSchema& variant,
    size_t extra_args) {
  const auto& b = base.arguments();
  const auto& v = variant.arguments();
  if (b.size() + extra_args != v.size()) {
    return false;
  }
  // Both write the same leading arguments (none, or batch norm's running
  // statistics), so the base's rule keeps them where the variant needs.
  for (size_t i = 0; i < b.size(); ++i) {
    if (!same_argument(b[i], v[i]) || writes(b[i]) != writes(v[i])) {
      return false;
    }
  }
  return tensor_returns(base) != SIZE_MAX &&
      tensor_returns(base) == tensor_returns(variant);
}

RuleEntry
derive(const std::string& base_name, const RuleEntry& base, size_t out_args) {
  RuleEntry e;
  e.family = base.family;
  e.rule = base.rule;
  e.derived_from = base_name;
  e.out_args = out_args;
  e.hidden_writes = base.hidden_writes;
  e.keys_tensor_kinds = base.keys_tensor_kinds;
  e.strategies = base.strategies +
      (out_args > 0
           ? "; out=: as `" + base_name +
               "`, the out tensors keep their placements"
           : "; in-place: as `" + base_name + "`, self keeps its placement");
  return e;
}

} // namespace

void add_derived_variants(RuleTable& table) {
  const auto& by_name = operators_by_name();
  std::vector<c10::OperatorHandle> candidates;
  for (const auto& [name, handles] : by_name) {
    if (name.rfind("aten::", 0) != 0) {
      continue;
    }
    for (const auto& handle : handles) {
      if (!table.count(entry_name(handle.operator_name())) &&
          !handle.hasKernelForDispatchKey(
              c10::DispatchKey::CompositeImplicitAutograd)) {
        candidates.push_back(handle);
      }
    }
  }
  auto find_base = [&](const std::string& name,
                       const c10::FunctionSchema& variant,
                       size_t extra_args) -> std::string {
    auto it = by_name.find(name);
    if (it == by_name.end()) {
      return "";
    }
    for (const auto& base : it->second) {
      const std::string base_name = entry_name(base.operator_name());
      auto rule = table.find(base_name);
      if (rule != table.end() && rule->second.derived_from.empty() &&
          functional_form_of(base.schema(), variant, extra_args)) {
        return base_name;
      }
    }
    return "";
  };
  for (const auto& op : candidates) {
    const auto& schema = op.schema();
    const std::string name = entry_name(op.operator_name());
    const size_t outs = trailing_out_args(schema);
    if (outs > 0) {
      const std::string base = find_base(schema.name(), schema, outs);
      // A view's rule computes its result with run_local and may pair
      // placements only its own output sizes fit: no out= form of a view.
      if (!base.empty() && !table.at(base).replicates_operands &&
          table.at(base).family != "view") {
        table[name] = derive(base, table.at(base), outs);
      }
      continue;
    }
    const auto& args = schema.arguments();
    const std::string functional = functional_of_inplace(schema.name());
    if (functional.empty() || args.empty() || !writes(args[0])) {
      continue;
    }
    bool only_self = true;
    for (size_t i = 1; i < args.size(); ++i) {
      only_self = only_self && !writes(args[i]);
    }
    // The in-place form's self is `Tensor(a!) self`; compare it without its
    // alias annotation.
    auto it = by_name.find(functional);
    if (!only_self || it == by_name.end()) {
      continue;
    }
    for (const auto& base : it->second) {
      const std::string base_name = entry_name(base.operator_name());
      auto rule = table.find(base_name);
      const auto& b = base.schema().arguments();
      bool same = rule != table.end() && rule->second.derived_from.empty() &&
          rule->second.family != "view" && !rule->second.replicates_operands &&
          !base.schema().is_mutable() && b.size() == args.size() &&
          tensor_returns(base.schema()) == 1 && tensor_returns(schema) == 1;
      for (size_t i = 0; same && i < b.size(); ++i) {
        same = same_argument(b[i], args[i]);
      }
      if (same) {
        table[name] = derive(base_name, rule->second, 0);
        break;
      }
    }
  }
}

} // namespace ops
} // namespace meshguard
