// Ops that work along some dims of a tensor and leave every other dim free
// (FreeDims.h): sort, scans and selections along `dim`, reductions over
// dims, tril/triu, padding, roll, index_fill/scatter, diagonal, FFTs,
// bucketize, linalg_cross, complex views, dot. An operand sharded on the
// op's own dim is moved first (to another dim, or gathered), as PyTorch
// does; PyTorch replicates it there (the conformance page's softmax-dim).

#include <ATen/core/dispatch/Dispatcher.h>

#include "FreeDims.h"

namespace meshguard {
namespace ops {

namespace {

int64_t rank_of(const CallInfo& call) {
  return call.operands.empty()
      ? 0
      : static_cast<int64_t>(call.operands[0].shape.size());
}

// The dims a list argument names (every dim when it is absent or None).
std::vector<int64_t> dims_arg(const CallInfo& call, size_t arg) {
  const int64_t rank = rank_of(call);
  std::vector<int64_t> out;
  if (arg < call.num_args && call.arg(arg).isIntList()) {
    for (const int64_t d : call.arg(arg).toIntVector()) {
      out.push_back(rank == 0 ? 0 : (d % rank + rank) % rank);
    }
  }
  if (out.empty() || arg >= call.num_args || call.arg(arg).isNone()) {
    out.clear();
    for (int64_t d = 0; d < rank; ++d) {
      out.push_back(d);
    }
  }
  return out;
}

bool keepdim_arg(const CallInfo& call, size_t arg) {
  return arg < call.num_args && call.arg(arg).isBool() &&
      call.arg(arg).toBool();
}

// What a `dim` argument is: int, int?, int[] / int[]?, or something else
// (a Dimname: no rule, the op runs on all-Replicate operands).
enum class DimKind { kNone, kInt, kList, kOther };

DimKind dim_kind(const c10::FunctionSchema& schema, const char* name) {
  const size_t i = arg_index(schema, name);
  if (i == SIZE_MAX) {
    return DimKind::kNone;
  }
  c10::TypePtr t = schema.arguments()[i].type();
  if (t->kind() == c10::TypeKind::OptionalType) {
    t = t->castRaw<c10::OptionalType>()->getElementType();
  }
  return t->kind() == c10::TypeKind::IntType ? DimKind::kInt
      : t->kind() == c10::TypeKind::ListType ? DimKind::kList
                                             : DimKind::kOther;
}

// The arguments (by name) that stay whole: indices along `dim`, a value,
// bucketize's boundaries.
std::vector<size_t> whole_args(
    const c10::FunctionSchema& schema,
    std::initializer_list<const char*> names) {
  std::vector<size_t> out;
  for (const char* name : names) {
    if (arg_index(schema, name) != SIZE_MAX) {
      out.push_back(arg_index(schema, name));
    }
  }
  return out;
}

// Along one `dim` argument; `keepdim` (if the schema has it) says whether
// the outputs keep it; a None dim (argmax) excludes every dim.
RuleFn along_dim(
    const c10::FunctionSchema& schema,
    bool keeps_rank,
    std::vector<size_t> whole = {}) {
  const size_t dim = arg_index(schema, "dim");
  const size_t keepdim = arg_index(schema, "keepdim");
  const size_t outputs = schema.returns().size();
  return [=](const CallInfo& call) {
    const int64_t rank = rank_of(call);
    AllDimsExcept how;
    how.outputs = outputs;
    how.whole_args = whole;
    how.keep_rank = keeps_rank || keepdim_arg(call, keepdim);
    if (dim == SIZE_MAX) {
      how.excluded = {};
    } else if (call.arg(dim).isNone()) {
      how.excluded = dims_arg(call, SIZE_MAX);
    } else {
      how.excluded = {dim_arg(call, dim, rank, 0)};
    }
    return free_dim_rule(call, all_dims_except(call, how), outputs);
  };
}

// Over the dims a list argument names (reductions with int[]? dim).
RuleFn over_dims(
    const c10::FunctionSchema& schema,
    const char* list,
    bool partial_sum) {
  const size_t dims = arg_index(schema, list);
  const size_t keepdim = arg_index(schema, "keepdim");
  const size_t outputs = schema.returns().size();
  return [=](const CallInfo& call) {
    AllDimsExcept how;
    how.outputs = outputs;
    how.excluded = dims_arg(call, dims);
    how.keep_rank = keepdim == SIZE_MAX || keepdim_arg(call, keepdim);
    how.excluded_partial = partial_sum;
    return free_dim_rule(call, all_dims_except(call, how), outputs);
  };
}

// Every dim excluded: only all-Replicate (the whole tensor's median, ...).
RuleFn whole_tensor(const c10::FunctionSchema& schema) {
  const size_t outputs = schema.returns().size();
  return [=](const CallInfo& call) { return free_dim_rule(call, {}, outputs); };
}

// Excludes the dims `pick` names.
RuleFn excluding(
    const c10::FunctionSchema& schema,
    std::function<std::vector<int64_t>(const CallInfo&)> pick,
    bool keep_rank = true) {
  const size_t outputs = schema.returns().size();
  return [=](const CallInfo& call) {
    AllDimsExcept how;
    how.outputs = outputs;
    how.excluded = pick(call);
    how.keep_rank = keep_rank;
    return free_dim_rule(call, all_dims_except(call, how), outputs);
  };
}

std::vector<int64_t> last_dims(const CallInfo& call, int64_t n) {
  std::vector<int64_t> out;
  for (int64_t d = std::max<int64_t>(0, rank_of(call) - n); d < rank_of(call);
       ++d) {
    out.push_back(d);
  }
  return out;
}

} // namespace

void add_along_dim_rules(RuleTable& table) {
  const char* family = "along-dim";
  const std::string along =
      "S(d) → S(d) for every d but `dim` (an operand sharded on `dim` is moved); R → R";
  for (const char* name :
       {"sort",
        "cummax",
        "cummin",
        "cummaxmin_backward",
        "cumprod",
        "logcumsumexp",
        "_safe_softmax",
        "linalg_cross",
        "frexp"}) { // frexp: along no dim (mantissa and exponent)
    add_for_overloads(table, family, name, along, [](const auto& schema) {
      return along_dim(schema, /*keeps_rank=*/true);
    });
  }
  const std::string selects =
      "S(d) → S(d) (S(d-1) past `dim` without keepdim) for every d but `dim`; R → R";
  for (const char* name :
       {"kthvalue",
        "median",
        "nanmedian",
        "mode",
        "all",
        "any",
        "argmax",
        "argmin"}) {
    add_for_overloads(table, family, name, selects, [](const auto& schema) {
      switch (dim_kind(schema, "dim")) {
        case DimKind::kInt:
          return along_dim(schema, false);
        case DimKind::kList:
          return over_dims(schema, "dim", false); // any.dims
        case DimKind::kNone: // median(), all(), any()
        case DimKind::kOther:
          break;
      }
      return whole_tensor(schema);
    });
  }
  // A sum of |x|^ord over `dim` (the _foreach_norm fast path's partial
  // sums): additive over the shards of a reduced dim.
  for (const char* name : {"nansum", "linalg__powsum"}) {
    add_for_overloads(
        table,
        family,
        name,
        "S(d) → S(d) for d not reduced; S(d) → P(sum) for a reduced d; R → R",
        [](const auto& schema) { return over_dims(schema, "dim", true); });
  }
  add_for_overloads(
      table,
      family,
      "index_fill",
      "S(d) → S(d) for every d but `dim`, index and value R; R → R",
      [](const auto& schema) {
        return along_dim(schema, true, whole_args(schema, {"index", "value"}));
      });
  add_for_overloads(
      table,
      family,
      "scatter",
      "S(d)×S(d)×S(d) → S(d) for every d but `dim` (index and src of self's shape); R → R",
      [](const auto& schema) { return along_dim(schema, true); });
  add_for_overloads(
      table,
      family,
      "bucketize",
      "S(d) → S(d) for every d of self, boundaries R; R → R",
      [](const auto& schema) {
        return along_dim(schema, true, whole_args(schema, {"boundaries"}));
      });
  const std::string triangle =
      "S(d) → S(d) for every batch d (not the last two); R → R";
  for (const char* name : {"tril", "triu"}) {
    add_for_overloads(table, family, name, triangle, [](const auto& schema) {
      return excluding(
          schema, [](const CallInfo& call) { return last_dims(call, 2); });
    });
  }
  add_for_overloads(
      table,
      family,
      "constant_pad_nd",
      "S(d) → S(d) for every d not padded; R → R",
      [](const auto& schema) {
        const size_t pad = arg_index(schema, "pad");
        return excluding(schema, [pad](const CallInfo& call) {
          const auto p = call.arg(pad).toIntVector();
          std::vector<int64_t> out;
          const int64_t rank = rank_of(call);
          for (size_t i = 0; i + 1 < p.size(); i += 2) {
            if (p[i] != 0 || p[i + 1] != 0) {
              out.push_back(rank - 1 - static_cast<int64_t>(i / 2));
            }
          }
          return out;
        });
      });
  add_for_overloads(
      table,
      family,
      "roll",
      "S(d) → S(d) for every d not rolled (none when `dims` is empty); R → R",
      [](const auto& schema) { return over_dims(schema, "dims", false); });
  for (const char* name : {"diagonal", "diagonal_copy"}) {
    add_for_overloads(
        table,
        family,
        name,
        "S(d) → S(d') for every d but dim1 and dim2 (d' its place among the others); R → R",
        [](const auto& schema) {
          const size_t dim1 = arg_index(schema, "dim1");
          const size_t dim2 = arg_index(schema, "dim2");
          return excluding(
              schema,
              [dim1, dim2](const CallInfo& call) {
                const int64_t rank = rank_of(call);
                return std::vector<int64_t>{
                    dim_arg(call, dim1, rank, 0), dim_arg(call, dim2, rank, 1)};
              },
              /*keep_rank=*/false);
        });
  }
  const std::string fft = "S(d) → S(d) for every d not transformed; R → R";
  for (const char* name : {"_fft_c2c", "_fft_r2c", "_fft_c2r"}) {
    add_for_overloads(table, family, name, fft, [](const auto& schema) {
      return over_dims(schema, "dim", false);
    });
  }
  add_for_overloads(
      table,
      family,
      "view_as_real",
      "S(d) → S(d); R → R",
      [](const auto& schema) {
        return excluding(
            schema, [](const CallInfo&) { return std::vector<int64_t>{}; });
      });
  add_for_overloads(
      table, family, "_conj", "S(d) → S(d); R → R", [](const auto& schema) {
        return excluding(
            schema, [](const CallInfo&) { return std::vector<int64_t>{}; });
      });
  add_for_overloads(
      table,
      family,
      "view_as_complex",
      "S(d) → S(d) for every d but the last (the pair); R → R",
      [](const auto& schema) {
        return excluding(
            schema,
            [](const CallInfo& call) { return last_dims(call, 1); },
            false);
      });
  add_for_overloads(
      table,
      family,
      "diag_embed",
      "S(d) → S(d) for every d but the last, when the new dims are the output's last two; R → R",
      [](const auto& schema) {
        const size_t dim1 = arg_index(schema, "dim1");
        const size_t dim2 = arg_index(schema, "dim2");
        return excluding(schema, [dim1, dim2](const CallInfo& call) {
          const int64_t out_rank = rank_of(call) + 1;
          const int64_t a = dim_arg(call, dim1, out_rank, -1);
          const int64_t b = dim_arg(call, dim2, out_rank, -1);
          if (std::min(a, b) != out_rank - 2 ||
              std::max(a, b) != out_rank - 1) {
            return dims_arg(call, SIZE_MAX); // new dims elsewhere: whole
          }
          return last_dims(call, 1);
        });
      });
  add_for_overloads(
      table,
      family,
      "dot",
      "S(0)×S(0) → P(sum); R×R → R",
      [](const auto&) -> RuleFn {
        return [](const CallInfo& call) {
          std::vector<FreeDim> dims;
          if (call.operands.size() == 2 &&
              call.operands[0].shape == call.operands[1].shape) {
            dims.push_back(FreeDim{{0, 0}, {kPartialSum}});
          }
          return free_dim_rule(call, dims, 1);
        };
      });
}

} // namespace ops
} // namespace meshguard
