// Ops that write a source into a part of self (FreeDims.h): select_scatter,
// slice_scatter and diagonal_scatter (the backwards of select, slice and
// diagonal), and index_reduce. Every dim of self the op does not work along
// is free; the source is sharded alike on its own dim for it (select's
// source lacks `dim`, diagonal's puts the diagonal last). An operand
// sharded along a dim the op works along is moved, as for any free-dim rule.

#include <algorithm>

#include "FreeDims.h"

namespace meshguard {
namespace ops {

namespace {

// Self's dim d in the source (the argument `source`): d renumbered past the
// dims the source lacks (`dropped`, sorted), or the same d.
int64_t source_dim(int64_t d, const std::vector<int64_t>& dropped) {
  return d - std::count_if(dropped.begin(), dropped.end(), [d](int64_t e) {
           return e < d;
         });
}

// One FreeDim per dim of self outside `along`: self and the output d, the
// source (argument `source`) its own dim of the same size, other operands
// (an index) whole. `source_drops`: whether the source lacks the `along`
// dims (select, diagonal) or has them with other sizes (slice, index).
std::vector<FreeDim> outside(
    const CallInfo& call,
    std::vector<int64_t> along,
    size_t source,
    bool source_drops) {
  std::sort(along.begin(), along.end());
  const Shape& self = call.operands[0].shape;
  std::vector<FreeDim> out;
  for (int64_t d = 0; d < static_cast<int64_t>(self.size()); ++d) {
    if (std::find(along.begin(), along.end(), d) != along.end()) {
      continue;
    }
    FreeDim f{{}, {d}};
    bool aligned = true;
    for (const Operand& o : call.operands) {
      if (o.arg_index == 0) {
        f.operands.push_back(d);
      } else if (o.arg_index == source) {
        const int64_t s = source_drops ? source_dim(d, along) : d;
        aligned = aligned && s < static_cast<int64_t>(o.shape.size()) &&
            o.shape[s] == self[d];
        f.operands.push_back(s);
      } else {
        f.operands.push_back(kWhole);
      }
    }
    if (aligned) {
      out.push_back(std::move(f));
    }
  }
  return out;
}

RuleFn scatter_rule(
    const c10::FunctionSchema& schema,
    std::vector<const char*> dims,
    const char* source,
    bool source_drops) {
  std::vector<size_t> dim_args;
  dim_args.reserve(dims.size());
  for (const char* name : dims) {
    dim_args.push_back(arg_index(schema, name));
  }
  const size_t src = arg_index(schema, source);
  return [=](const CallInfo& call) {
    const auto rank = static_cast<int64_t>(call.operands[0].shape.size());
    std::vector<int64_t> along;
    along.reserve(dim_args.size());
    for (const size_t a : dim_args) {
      along.push_back(dim_arg(call, a, rank, 0));
    }
    return free_dim_rule(call, outside(call, along, src, source_drops), 1);
  };
}

} // namespace

void add_scatter_rules(RuleTable& table) {
  const char* family = "along-dim";
  add_for_overloads(
      table,
      family,
      "select_scatter",
      "self×src: S(d)×S(d') → S(d) for every d but `dim` (d' its place in src); R → R",
      [](const auto& schema) {
        return scatter_rule(schema, {"dim"}, "src", true);
      });
  add_for_overloads(
      table,
      family,
      "slice_scatter",
      "self×src: S(d)×S(d) → S(d) for every d but `dim`; R → R",
      [](const auto& schema) {
        return scatter_rule(schema, {"dim"}, "src", false);
      });
  add_for_overloads(
      table,
      family,
      "diagonal_scatter",
      "self×src: S(d)×S(d') → S(d) for every d but `dim1`, `dim2` (d' its place in src); R → R",
      [](const auto& schema) {
        return scatter_rule(schema, {"dim1", "dim2"}, "src", true);
      });
  add_for_overloads(
      table,
      family,
      "index_reduce",
      "self×index×source: S(d)×R×S(d) → S(d) for every d but `dim`; R → R",
      [](const auto& schema) {
        return scatter_rule(schema, {"dim"}, "source", false);
      });
}

} // namespace ops
} // namespace meshguard
