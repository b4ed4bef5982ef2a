// Pointwise ops: the output may be sharded on any of its dims, each operand
// then on the aligned dim (Replicate where it broadcasts); Partial operands
// pass only where the op is linear in them.

#include <unordered_map>
#include <unordered_set>

#include <ATen/ATen.h>
#include <ATen/ExpandUtils.h>
#include <ATen/core/dispatch/Dispatcher.h>

#include "PointwiseOps.h"
#include "RuleTable.h"

namespace meshguard {
namespace ops {

namespace {

// The op's current Partial (taken from the first Partial operand on any
// mesh dim); the rule offers Partial strategies for it only.
std::vector<Partial> partials_in(const CallInfo& call) {
  std::vector<Partial> out;
  for (const auto& o : call.operands) {
    for (const auto& p : o.placements) {
      if (auto* q = std::get_if<Partial>(&p)) {
        bool seen = false;
        for (const auto& r : out) {
          seen = seen || r == *q;
        }
        if (!seen) {
          out.push_back(*q);
        }
      }
    }
  }
  return out;
}

RuleResult pointwise_rule(
    const CallInfo& call,
    PartialRule partial_rule,
    bool linear_overload,
    bool in_place) {
  RuleResult r;
  Shape out;
  if (in_place) {
    out = call.operands[0].shape;
  } else {
    for (const auto& o : call.operands) {
      out = at::infer_size(out, o.shape);
    }
  }
  const size_t n = call.operands.size();
  for (int64_t d = 0; d < static_cast<int64_t>(out.size()); ++d) {
    Strategy s;
    for (const auto& o : call.operands) {
      s.inputs.push_back(aligned_shard(o.shape, out, d));
    }
    s.outputs = {Shard{d}};
    r.strategies.push_back(std::move(s));
  }
  r.strategies.push_back(
      Strategy{std::vector<Placement>(n, Replicate{}), {Replicate{}}});
  if (linear_overload && partial_rule != PartialRule::kNone) {
    for (const Partial& p : partials_in(call)) {
      const bool sum =
          p.reduce_op == ReduceOp::SUM || p.reduce_op == ReduceOp::AVG;
      switch (partial_rule) {
        case PartialRule::kAllSame:
          r.strategies.push_back(Strategy{std::vector<Placement>(n, p), {p}});
          break;
        case PartialRule::kAllSameSum:
          // Adding a plain scalar on every rank would add it n times.
          if (sum && call.plain_tensors == 0) {
            r.strategies.push_back(Strategy{std::vector<Placement>(n, p), {p}});
          }
          break;
        case PartialRule::kOneScaled:
        case PartialRule::kSelfScaled:
          if (sum) {
            const size_t last =
                partial_rule == PartialRule::kSelfScaled ? 1 : n;
            for (size_t i = 0; i < last && i < n; ++i) {
              Strategy s{std::vector<Placement>(n, Replicate{}), {p}};
              s.inputs[i] = p;
              r.strategies.push_back(std::move(s));
            }
          }
          break;
        case PartialRule::kZeroFill:
          // Every rank writes 0 where the mask holds: the sum (or average)
          // there is 0 too. Another value would be counted once per rank.
          if (sum && n == 2 && call.num_args > 2 && call.arg(2).isScalar() &&
              call.arg(2).toScalar().toDouble() == 0.0) {
            r.strategies.push_back(Strategy{{p, Replicate{}}, {p}});
          }
          break;
        case PartialRule::kNone:
          break;
      }
    }
  }
  r.output_shapes = {out};
  return r;
}

const char* partial_doc(PartialRule rule) {
  switch (rule) {
    case PartialRule::kAllSame:
      return "; P(op)×…×P(op) → P(op)";
    case PartialRule::kAllSameSum:
      return "; P(sum)×…×P(sum) → P(sum) (also avg; not with a plain scalar operand)";
    case PartialRule::kOneScaled:
      return "; P(sum)×R → P(sum), R×P(sum) → P(sum) (also avg; a Scalar factor too)";
    case PartialRule::kSelfScaled:
      return "; P(sum)×R → P(sum) (also avg; the dividend only)";
    case PartialRule::kZeroFill:
      return "; P(sum)×R → P(sum) when the value is 0 (also avg)";
    case PartialRule::kNone:
      break;
  }
  return "";
}

// What a new_* factory fills the new tensor with.
enum class Fill { kEmpty, kZeros, kValue };

// new_empty_strided / new_empty / new_zeros (autograd makes gradients'
// buffers this way), new_ones / new_full: the new tensor may take self's
// shard on a dim of the same length (a constant is the same in any layout;
// index_select's and gather's backwards then add into zeros without a
// gather), made with the local size. Self's own size: zeros (or garbage)
// may also keep self's Partial; a value other than zero may not (every
// rank's ones sum to the world size), so a Partial self gives Replicate, as
// for ones_like. Else Replicate.
RuleResult like_factory_rule(
    const CallInfo& call,
    Fill fill,
    size_t value_arg,
    size_t dtype_arg) {
  RuleResult r;
  const Shape size = call.arg(1).toIntVector();
  const Shape& self = call.operands[0].shape;
  for (int64_t d = 0;
       d < static_cast<int64_t>(std::min(self.size(), size.size()));
       ++d) {
    if (size[d] == self[d]) {
      r.strategies.push_back({{Shard{d}}, {Shard{d}}});
    }
  }
  r.strategies.push_back({{Replicate{}}, {Replicate{}}});
  for (const auto& p : call.operands[0].placements) {
    if (is_partial(p)) {
      if (fill == Fill::kValue) {
        r.strategies.push_back({{p}, {Replicate{}}});
      } else if (size == self) {
        r.strategies.push_back({{p}, {p}});
      }
    }
  }
  r.output_shapes = {size};
  c10::optional<at::ScalarType> dtype;
  if (dtype_arg < call.num_args && !call.arg(dtype_arg).isNone()) {
    dtype = call.arg(dtype_arg).toScalarType();
  }
  const at::Scalar value = value_arg < call.num_args
      ? call.arg(value_arg).toScalar()
      : at::Scalar(1);
  r.run_local = [fill, value, dtype](
                    const std::vector<at::Tensor>& locals,
                    const LocalContext& ctx) {
    auto options = locals[0].options();
    if (dtype) {
      // libtorch 1.13's dtype() takes a c10::optional, not this std::optional.
      // NOLINTNEXTLINE(bugprone-optional-value-conversion)
      options = options.dtype(*dtype);
    }
    const Shape& local = (*ctx.output_shapes)[0];
    switch (fill) {
      case Fill::kEmpty:
        return std::vector<at::Tensor>{at::empty(local, options)};
      case Fill::kZeros:
        return std::vector<at::Tensor>{at::zeros(local, options)};
      case Fill::kValue:
        break;
    }
    return std::vector<at::Tensor>{at::full(local, value, options)};
  };
  return r;
}

// An out= form (its last argument the one written, a kwarg-only Tensor)
// whose functional overload decomposes (silu_backward.grad_input,
// conj_physical.out): there is no functional rule to derive it from
// (Variants.cpp), so the pointwise rule is given here.
bool out_of_decomposing(const c10::FunctionSchema& schema) {
  const auto& args = schema.arguments();
  if (args.empty() || schema.returns().size() != 1) {
    return false;
  }
  auto writes = [](const c10::Argument& a) {
    return a.alias_info() != nullptr && a.alias_info()->isWrite();
  };
  const auto& out = args.back();
  if (!out.kwarg_only() || !writes(out) ||
      out.type()->kind() != c10::TypeKind::TensorType) {
    return false;
  }
  for (size_t i = 0; i + 1 < args.size(); ++i) {
    if (writes(args[i]) || args[i].type()->kind() == c10::TypeKind::ListType) {
      return false;
    }
  }
  auto it = operators_by_name().find(schema.name());
  if (it == operators_by_name().end()) {
    return false;
  }
  for (const auto& base : it->second) {
    const auto& b = base.schema().arguments();
    bool same = b.size() + 1 == args.size() && !base.schema().is_mutable() &&
        base.hasKernelForDispatchKey(
            c10::DispatchKey::CompositeImplicitAutograd);
    for (size_t i = 0; same && i < b.size(); ++i) {
      same = b[i].name() == args[i].name();
    }
    if (same) {
      return true;
    }
  }
  return false;
}

} // namespace

void add_pointwise_rules(RuleTable& table) {
  const std::string like =
      "S(d) → S(d) when the new size has self's length on d; self's own size: also P(op) → "
      "P(op); R → R";
  constexpr size_t kNoValue = SIZE_MAX;
  table["aten::new_empty_strided.default"] = {
      "pointwise", like, [](const CallInfo& c) {
        return like_factory_rule(c, Fill::kEmpty, kNoValue, 3);
      }};
  table["aten::new_empty.default"] = {"pointwise", like, [](const CallInfo& c) {
                                        return like_factory_rule(
                                            c, Fill::kEmpty, kNoValue, 2);
                                      }};
  table["aten::new_zeros.default"] = {"pointwise", like, [](const CallInfo& c) {
                                        return like_factory_rule(
                                            c, Fill::kZeros, kNoValue, 2);
                                      }};
  const std::string filled =
      "S(d) → S(d) when the new size has self's length on d; R → R; P(op) → R (the values "
      "do not depend on self's)";
  table["aten::new_ones.default"] = {
      "pointwise", filled, [](const CallInfo& c) {
        return like_factory_rule(c, Fill::kValue, kNoValue, 2);
      }};
  table["aten::new_full.default"] = {
      "pointwise", filled, [](const CallInfo& c) {
        return like_factory_rule(c, Fill::kValue, 2, 3);
      }};
  auto& dispatcher = c10::Dispatcher::singleton();
  for (const auto& name : dispatcher.getAllOpNames()) {
    std::string base = name.name;
    if (base.rfind("aten::", 0) != 0) {
      continue;
    }
    base = base.substr(6);
    if (base.rfind("__i", 0) == 0 && base.size() > 5) {
      base = "__" + base.substr(3); // __ilshift__ is __lshift__ in place
    } else if (
        base.size() > 1 && base.back() == '_' && base[base.size() - 2] != '_') {
      base.pop_back();
    }
    auto it = pointwise_ops().find(base);
    if (it == pointwise_ops().end()) {
      continue;
    }
    auto handle = dispatcher.findOp(name);
    if (!handle || !handle->hasSchema()) {
      continue;
    }
    if (handle->hasKernelForDispatchKey(
            c10::DispatchKey::CompositeImplicitAutograd)) {
      continue; // decomposes (square, clip, true_divide, ...): a rule would
                // never run
    }
    const auto& schema = handle->schema();
    if (out_of_decomposing(schema)) {
      RuleEntry entry;
      entry.family = "pointwise";
      entry.strategies =
          "S(d)×… → S(d) for any output dim d (broadcast operands R); R×…×R → R; out=: the out tensor keeps its "
          "placement (the functional overload decomposes)";
      entry.out_args = 1;
      entry.rule = [](const CallInfo& call) {
        return pointwise_rule(call, PartialRule::kNone, false, false);
      };
      table[entry_name(handle->operator_name())] = std::move(entry);
      continue;
    }
    // Only the functional and self-in-place forms: out= variants, list
    // arguments and multiple results are not pointwise in our sense.
    bool ok = schema.returns().size() == 1 &&
        schema.returns()[0].type()->kind() == c10::TypeKind::TensorType;
    bool in_place = false;
    for (size_t i = 0; i < schema.arguments().size() && ok; ++i) {
      const auto& arg = schema.arguments()[i];
      const auto* alias = arg.alias_info();
      if (alias && alias->isWrite()) {
        ok = i == 0;
        in_place = true;
      }
      ok = ok && arg.type()->kind() != c10::TypeKind::ListType;
    }
    if (!ok) {
      continue;
    }
    const std::string overload =
        name.overload_name.empty() ? "default" : name.overload_name;
    // add.Scalar, div.Tensor_mode, ...: not linear in a Partial operand.
    const bool linear_overload = overload == "default" ||
        overload == "Tensor" ||
        (overload == "Scalar" &&
         (base == "mul" || base == "div" || base == "true_divide" ||
          base == "masked_fill")) ||
        base == "_to_copy" || base == "clone" || base == "alias" ||
        base == "detach" || base == "lift_fresh" || base == "zeros_like" ||
        base == "copy" || base == "zero" || base == "positive" || base == "neg";
    const PartialRule partial_rule = it->second;
    RuleEntry entry;
    entry.family = "pointwise";
    entry.strategies =
        std::string(
            "S(d)×… → S(d) for any output dim d (broadcast operands R); R×…×R → R") +
        (linear_overload ? partial_doc(partial_rule) : "");
    entry.rule =
        [partial_rule, linear_overload, in_place](const CallInfo& call) {
          return pointwise_rule(call, partial_rule, linear_overload, in_place);
        };
    table[name.name + "." + overload] = std::move(entry);
  }
}

} // namespace ops
} // namespace meshguard
