#include "FreeDims.h"

#include <algorithm>

#include <ATen/core/dispatch/Dispatcher.h>

namespace meshguard {
namespace ops {

namespace {

// Whether `size` splits into `k` torch.chunk pieces none of which is empty
// (avg_pool2d of [8, 0, 6, 6] throws).
bool no_empty_chunk(int64_t size, int64_t k) {
  if (k <= 1) {
    return true;
  }
  const int64_t chunk = (size + k - 1) / k;
  return chunk > 0 && (size + chunk - 1) / chunk >= k;
}

} // namespace

RuleResult free_dim_rule(
    const CallInfo& call,
    const std::vector<FreeDim>& dims,
    size_t outputs,
    bool empty_blocks_ok) {
  RuleResult r;
  r.shapes_from_locals = true;
  r.output_shapes.assign(outputs, Shape{});
  const size_t operands = call.operands.size();
  for (const FreeDim& f : dims) {
    TORCH_CHECK(
        f.operands.size() == operands, "free-dim rule: one dim per operand");
    Strategy s;
    int64_t source = -1; // the first sharded operand
    bool fits = true;
    for (size_t i = 0; i < f.operands.size(); ++i) {
      if (f.operands[i] >= 0) {
        const Shape& shape = call.operands[i].shape;
        fits = fits && f.operands[i] < static_cast<int64_t>(shape.size()) &&
            (empty_blocks_ok ||
             no_empty_chunk(shape[f.operands[i]], call.mesh_size));
        s.inputs.emplace_back(Shard{f.operands[i]});
        source = source < 0 ? static_cast<int64_t>(i) : source;
      } else {
        s.inputs.emplace_back(Replicate{});
      }
    }
    for (size_t o = 0; o < outputs; ++o) {
      const int64_t d = o < f.outputs.size() ? f.outputs[o] : kWhole;
      if (d >= 0) {
        s.outputs.emplace_back(Shard{d});
        if (source >= 0) {
          r.global_dims.push_back(GlobalDim{
              o,
              d,
              static_cast<size_t>(source),
              f.operands[static_cast<size_t>(source)]});
        }
      } else if (d == kPartialSum) {
        s.outputs.emplace_back(Partial{ReduceOp::SUM});
      } else {
        s.outputs.emplace_back(Replicate{});
      }
    }
    if (source >= 0 && fits) {
      r.strategies.push_back(std::move(s));
    }
  }
  r.strategies.push_back(Strategy{
      std::vector<Placement>(operands, Replicate{}),
      std::vector<Placement>(outputs, Replicate{})});
  return r;
}

size_t arg_index(const c10::FunctionSchema& schema, const char* name) {
  const auto& args = schema.arguments();
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i].name() == name) {
      return i;
    }
  }
  return SIZE_MAX;
}

int64_t operand_at(const CallInfo& call, size_t arg) {
  for (size_t i = 0; i < call.operands.size(); ++i) {
    if (call.operands[i].arg_index == arg) {
      return static_cast<int64_t>(i);
    }
  }
  return -1;
}

int64_t
dim_arg(const CallInfo& call, size_t arg, int64_t rank, int64_t fallback) {
  if (arg >= call.num_args || !call.arg(arg).isInt()) {
    return fallback;
  }
  const int64_t d = call.arg(arg).toInt();
  return rank == 0 ? 0 : (d % rank + rank) % rank;
}

std::vector<FreeDim> all_dims_except(
    const CallInfo& call,
    const AllDimsExcept& how) {
  std::vector<FreeDim> out;
  if (call.operands.empty()) {
    return out;
  }
  const Shape& self = call.operands[0].shape;
  const int64_t rank = static_cast<int64_t>(self.size());
  auto is_excluded = [&](int64_t d) {
    return std::find(how.excluded.begin(), how.excluded.end(), d) !=
        how.excluded.end();
  };
  auto whole = [&](const Operand& o) {
    return std::find(
               how.whole_args.begin(), how.whole_args.end(), o.arg_index) !=
        how.whole_args.end();
  };
  for (int64_t d = 0; d < rank; ++d) {
    FreeDim f;
    bool aligned = true;
    for (const Operand& o : call.operands) {
      aligned = aligned && (whole(o) || o.shape == self);
      f.operands.push_back(whole(o) ? kWhole : d);
    }
    if (!aligned) {
      continue;
    }
    if (is_excluded(d)) {
      if (!how.excluded_partial) {
        continue;
      }
      f.outputs.assign(how.outputs, kPartialSum);
    } else {
      int64_t kept = d;
      for (int64_t e = 0; e < d && !how.keep_rank; ++e) {
        kept -= is_excluded(e);
      }
      f.outputs.assign(how.outputs, kept);
    }
    out.push_back(std::move(f));
  }
  return out;
}

std::vector<FreeDim> leading_dims(
    const CallInfo& call,
    const std::vector<int64_t>& core,
    size_t outputs) {
  std::vector<FreeDim> out;
  if (call.operands.empty()) {
    return out;
  }
  // Operand 0 names the batch; others join when their batch dims match it.
  auto core_of = [&](size_t i) {
    const size_t arg = call.operands[i].arg_index;
    return arg < core.size() ? core[arg] : 0;
  };
  const Shape& first = call.operands[0].shape;
  const int64_t batch = static_cast<int64_t>(first.size()) - core_of(0);
  for (int64_t d = 0; d < batch; ++d) {
    FreeDim f;
    for (size_t i = 0; i < call.operands.size(); ++i) {
      const Shape& s = call.operands[i].shape;
      const bool aligned =
          static_cast<int64_t>(s.size()) - core_of(i) == batch &&
          std::equal(first.begin(), first.begin() + batch, s.begin());
      f.operands.push_back(aligned ? d : kWhole);
    }
    f.outputs.assign(outputs, d);
    out.push_back(std::move(f));
  }
  return out;
}

size_t add_for_overloads(
    RuleTable& table,
    const char* family,
    const char* name,
    const std::string& strategies,
    const std::function<RuleFn(const c10::FunctionSchema&)>& make_rule) {
  const std::string full = std::string("aten::") + name;
  // A CompositeImplicitAutograd op never reaches the kernel, except a
  // backward helper with a rule (CallPolicy.h: its decomposition makes
  // plain zeros that would meet DTensors).
  const bool backward_helper =
      full.size() > 9 && full.compare(full.size() - 9, 9, "_backward") == 0;
  size_t added = 0;
  auto it = operators_by_name().find(full);
  if (it == operators_by_name().end()) {
    return 0;
  }
  for (const c10::OperatorHandle& handle : it->second) {
    if (handle.hasKernelForDispatchKey(
            c10::DispatchKey::CompositeImplicitAutograd) &&
        !backward_helper) {
      continue;
    }
    const auto& schema = handle.schema();
    bool ok = true;
    for (const auto& r : schema.returns()) {
      ok = ok && r.type()->kind() == c10::TypeKind::TensorType;
    }
    for (const auto& a : schema.arguments()) {
      ok = ok && !(a.alias_info() && a.alias_info()->isWrite());
    }
    if (!ok) {
      continue;
    }
    RuleEntry entry;
    entry.family = family;
    entry.strategies = strategies;
    entry.rule = make_rule(schema);
    table[entry_name(handle.operator_name())] = std::move(entry);
    ++added;
  }
  return added;
}

} // namespace ops
} // namespace meshguard
