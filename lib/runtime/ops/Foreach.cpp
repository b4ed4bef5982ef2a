// The _foreach_ ops (optimizers' steps, gradient clipping) on DTensors: each
// element is one call of the elementwise op, through the DTensor kernel, so
// each is sharded by that op's own rule (as libtorch's slow path computes
// them and PyTorch's autogen.py derives their strategies). Which elementwise
// overload, and how each argument becomes its argument, is read from the
// two schemas once, when the table is built.

#include <unordered_map>
#include <vector>

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>
#include <c10/core/impl/LocalDispatchKeySet.h>

#include "RuleTable.h"

namespace meshguard {
namespace ops {

namespace {

// How one argument of the foreach op becomes an argument of the element call.
enum class Take {
  kSame, // the same value for every element (a Scalar, one Tensor)
  kElement, // element i of a Tensor[] or Scalar[]
  kTensorElement, // element i of a 1-D tensor of scalars, as a Scalar
};

struct ForeachPlan {
  c10::OperatorHandle base;
  // Per argument of the element op: the foreach argument it comes from, or
  // -1 (its default value).
  std::vector<int64_t> source;
  std::vector<Take> take; // per foreach argument
  bool returns_list = false;
  // An in-place foreach op whose elementwise op has no in-place form
  // (_foreach_maximum_: no maximum_): the functional op, copied into self.
  bool copy_into_self = false;
};

// Elementwise ops whose name is not the foreach op's stem.
const char* renamed(const std::string& stem) {
  if (stem == "norm") {
    return "linalg_vector_norm";
  }
  if (stem == "powsum") {
    return "linalg__powsum";
  }
  return nullptr;
}

bool writes(const c10::Argument& a) {
  return a.alias_info() != nullptr && a.alias_info()->isWrite();
}

// Matches the foreach schema's arguments to `base`'s, by position or (when
// `by_name`) by name; nullopt when they do not fit.
c10::optional<ForeachPlan> match(
    const c10::FunctionSchema& foreach,
    const c10::OperatorHandle& base,
    bool by_name) {
  const auto& f = foreach.arguments();
  const auto& b = base.schema().arguments();
  ForeachPlan plan{base, std::vector<int64_t>(b.size(), -1), {}, false};
  for (size_t j = 0; j < f.size(); ++j) {
    size_t k = j;
    if (by_name) {
      for (k = 0; k < b.size() && b[k].name() != f[j].name(); ++k) {
      }
    }
    if (k >= b.size() || plan.source[k] >= 0) {
      return c10::nullopt;
    }
    const c10::TypePtr& want = b[k].type();
    const c10::TypePtr& have = f[j].type();
    Take take = Take::kSame;
    if (*have == *want) {
      take = Take::kSame;
    } else if (
        have->kind() == c10::TypeKind::ListType &&
        *have->castRaw<c10::ListType>()->getElementType() == *want) {
      take = Take::kElement;
    } else if (
        f[j].name() == "scalars" && have->kind() == c10::TypeKind::TensorType &&
        want->kind() == c10::TypeKind::NumberType) {
      take = Take::kTensorElement;
    } else {
      return c10::nullopt;
    }
    plan.source[k] = static_cast<int64_t>(j);
    plan.take.push_back(take);
  }
  for (size_t k = 0; k < b.size(); ++k) {
    if (plan.source[k] < 0 && !b[k].default_value().has_value()) {
      return c10::nullopt;
    }
  }
  return plan;
}

c10::optional<ForeachPlan> plan_for(
    const c10::FunctionSchema& foreach,
    const std::unordered_map<std::string, std::vector<c10::OperatorHandle>>&
        by_name,
    const RuleTable& table) {
  const std::string prefix = "aten::_foreach_";
  std::string stem = foreach.name().substr(prefix.size());
  const bool in_place = !stem.empty() && stem.back() == '_';
  if (in_place) {
    stem.pop_back();
  }
  const char* other = renamed(stem);
  const std::string functional = "aten::" + (other ? std::string(other) : stem);
  // The in-place elementwise op, else (in place) the functional one copied.
  for (const bool copy : {false, true}) {
    if (copy && !in_place) {
      break;
    }
    const bool base_in_place = in_place && !copy;
    auto it = by_name.find(functional + (base_in_place ? "_" : ""));
    if (it == by_name.end()) {
      continue;
    }
    for (const bool by_name_match : {false, true}) {
      for (const auto& base : it->second) {
        const auto& schema = base.schema();
        const std::string entry = entry_name(base.operator_name());
        const bool writes_self =
            !schema.arguments().empty() && writes(schema.arguments()[0]);
        if (!table.count(entry) || writes_self != base_in_place ||
            schema.returns().size() != 1) {
          continue;
        }
        auto plan = match(foreach, base, by_name_match);
        if (plan) {
          plan->returns_list = !foreach.returns().empty();
          plan->copy_into_self = copy;
          return plan;
        }
      }
    }
  }
  return c10::nullopt;
}

// The number of elements: the length of the first list argument.
size_t element_count(const c10::IValue* args, size_t n) {
  for (size_t j = 0; j < n; ++j) {
    if (args[j].isTensorList()) {
      return args[j].toTensorList().size();
    }
  }
  return 0;
}

void run_elements(
    const ForeachPlan& plan,
    torch::jit::Stack& stack,
    size_t args_begin) {
  const size_t num_args = stack.size() - args_begin;
  std::vector<c10::IValue> args(
      std::make_move_iterator(stack.begin() + args_begin),
      std::make_move_iterator(stack.end()));
  torch::jit::drop(stack, num_args);
  const size_t n = element_count(args.data(), num_args);
  const auto& base_args = plan.base.schema().arguments();
  c10::List<at::Tensor> results;
  for (size_t i = 0; i < n; ++i) {
    torch::jit::Stack element;
    element.reserve(base_args.size());
    for (size_t k = 0; k < base_args.size(); ++k) {
      const int64_t j = plan.source[k];
      if (j < 0) {
        element.push_back(*base_args[k].default_value());
        continue;
      }
      const c10::IValue& v = args[j];
      switch (plan.take[j]) {
        case Take::kSame:
          element.push_back(v);
          break;
        case Take::kElement:
          element.push_back(
              v.isTensorList() ? c10::IValue(v.toTensorList().get(i))
                               : v.toListRef().at(i));
          break;
        case Take::kTensorElement:
          element.emplace_back(v.toTensor()[static_cast<int64_t>(i)].item());
          break;
      }
    }
    {
      // The foreach op's own autograd node already recorded the call.
      at::AutoDispatchBelowADInplaceOrView guard;
      plan.base.callBoxed(element);
      if (plan.copy_into_self) {
        args[0].toTensorList().get(i).copy_(element.back().toTensor());
      }
    }
    if (plan.returns_list) {
      results.push_back(element.back().toTensor());
    }
  }
  if (plan.returns_list) {
    stack.emplace_back(std::move(results));
  }
}

} // namespace

void add_foreach_rules(RuleTable& table) {
  const auto& by_name = operators_by_name();
  std::vector<c10::OperatorHandle> foreach_ops;
  for (const auto& [name, handles] : by_name) {
    if (name.rfind("aten::_foreach_", 0) == 0) {
      foreach_ops.insert(foreach_ops.end(), handles.begin(), handles.end());
    }
  }
  for (const auto& op : foreach_ops) {
    const auto& schema = op.schema();
    bool writes_other = false; // out= forms (Tensor(a!)[] out)
    for (size_t i = 1; i < schema.arguments().size(); ++i) {
      writes_other = writes_other || writes(schema.arguments()[i]);
    }
    auto plan = writes_other ? c10::nullopt : plan_for(schema, by_name, table);
    if (!plan) {
      continue;
    }
    const std::string base_entry = entry_name(plan->base.operator_name());
    RuleEntry entry;
    entry.family = "foreach";
    entry.strategies =
        "each element as `" + base_entry + "` (its rule, element by element)";
    entry.derived_from = base_entry;
    entry.run_whole = [plan = *plan](torch::jit::Stack& stack, size_t begin) {
      run_elements(plan, stack, begin);
    };
    table[entry_name(op.operator_name())] = std::move(entry);
  }
}

} // namespace ops
} // namespace meshguard
