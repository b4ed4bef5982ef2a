// Adding and dropping dims of size 1: unsqueeze, squeeze and squeeze_.
// squeeze goes by the GLOBAL sizes: a shard may be 1 long locally without
// the dim being 1 long. squeeze_ changes its self's shape in place: the
// functional squeeze's result becomes self's local block and spec.

#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>

#include <meshguard/runtime/DTensorImpl.h>

#include "RuleTable.h"
#include "ViewSupport.h"

namespace meshguard {
namespace ops {

namespace {

RuleResult unsqueeze_rule(const CallInfo& call, int64_t dim) {
  const Shape& in = call.operands[0].shape;
  const int64_t d = wrap_dim(dim, static_cast<int64_t>(in.size()) + 1);
  Shape out = in;
  out.insert(out.begin() + d, 1);
  std::vector<int64_t> dim_map(in.size());
  for (int64_t i = 0; i < static_cast<int64_t>(in.size()); ++i) {
    dim_map[i] = i < d ? i : i + 1;
  }
  return map_rule(call, dim_map, out);
}

RuleResult squeeze_rule(const CallInfo& call, std::vector<bool> squeeze) {
  const Shape& in = call.operands[0].shape;
  Shape out;
  std::vector<int64_t> dim_map(in.size(), -1);
  std::vector<int64_t> dropped;
  for (size_t i = 0; i < in.size(); ++i) {
    if (squeeze[i] && in[i] == 1) {
      dropped.push_back(static_cast<int64_t>(i));
    } else {
      dim_map[i] = static_cast<int64_t>(out.size());
      out.push_back(in[i]);
    }
  }
  RuleResult r = map_rule(call, dim_map, out);
  r.run_local =
      [dropped](const std::vector<at::Tensor>& locals, const LocalContext&) {
        at::Tensor t = locals[0];
        for (auto it = dropped.rbegin(); it != dropped.rend(); ++it) {
          t = t.squeeze(*it);
        }
        return std::vector<at::Tensor>{t};
      };
  return r;
}

// The dims squeeze's overload names: every dim (.default), `dim` (.dim) or
// each of `dim` (.dims).
std::vector<bool> squeezed_dims(const CallInfo& c) {
  const auto ndim = static_cast<int64_t>(c.operands[0].shape.size());
  if (c.num_args < 2) {
    return std::vector<bool>(ndim, true);
  }
  std::vector<bool> which(ndim, false);
  const std::vector<int64_t> dims = c.arg(1).isInt()
      ? std::vector<int64_t>{c.arg(1).toInt()}
      : c.arg(1).toIntVector();
  for (int64_t d : dims) {
    const int64_t w = wrap_dim(d, ndim);
    if (ndim > 0) {
      which[w] = true;
    }
  }
  return which;
}

// squeeze_: the functional overload through the DTensor kernel (its rule
// redistributes a sharded squeezed dim), its result then self's.
void squeeze_in_place(
    const c10::OperatorHandle& functional,
    torch::jit::Stack& stack,
    size_t begin) {
  const size_t num_args = stack.size() - begin;
  const at::Tensor self = stack[begin].toTensor();
  torch::jit::Stack call(
      stack.begin() + static_cast<std::ptrdiff_t>(begin), stack.end());
  {
    at::AutoDispatchBelowADInplaceOrView guard;
    functional.callBoxed(call);
  }
  const DTensorImpl* result = get_dtensor_impl(call.back().toTensor());
  get_dtensor_impl(self)->set_local_and_spec(result->local(), result->spec());
  torch::jit::drop(stack, num_args);
  stack.emplace_back(self);
}

} // namespace

void add_squeeze_rules(RuleTable& table) {
  const std::string follow = "S(d) → S(d') where d goes; R → R; P(op) → P(op)";
  table["aten::unsqueeze.default"] = {"view", follow, [](const CallInfo& c) {
                                        return unsqueeze_rule(
                                            c, c.arg(1).toInt());
                                      }};
  const std::string squeeze =
      "S(d) → S(d') for a kept dim; a squeezed dim must be R; R → R; P(op) → P(op)";
  const auto& ops = operators_by_name();
  auto functional = ops.find("aten::squeeze");
  auto in_place = ops.find("aten::squeeze_");
  if (functional == ops.end() || in_place == ops.end()) {
    return;
  }
  // The dimname overloads decompose before the kernel (into .dim).
  auto decomposes = [](const c10::OperatorHandle& op) {
    return op.hasKernelForDispatchKey(
        c10::DispatchKey::CompositeImplicitAutograd);
  };
  for (const c10::OperatorHandle& op : functional->second) {
    if (decomposes(op)) {
      continue;
    }
    table[entry_name(op.operator_name())] = {
        "view", squeeze, [](const CallInfo& c) {
          return squeeze_rule(c, squeezed_dims(c));
        }};
  }
  for (const c10::OperatorHandle& op : in_place->second) {
    for (const c10::OperatorHandle& base : functional->second) {
      if (base.schema().overload_name() != op.schema().overload_name() ||
          decomposes(op) || decomposes(base)) {
        continue;
      }
      RuleEntry entry;
      entry.family = "view";
      entry.strategies = squeeze + " (self takes the result's block and shape)";
      entry.derived_from = entry_name(base.operator_name());
      entry.run_whole = [base](torch::jit::Stack& stack, size_t begin) {
        squeeze_in_place(base, stack, begin);
      };
      table[entry_name(op.operator_name())] = std::move(entry);
    }
  }
}

} // namespace ops
} // namespace meshguard
