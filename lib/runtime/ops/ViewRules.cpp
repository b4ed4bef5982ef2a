// Views: each input dim maps to at most one output dim; a shard follows its
// dim when the view keeps torch.chunk's pieces contiguous, else the input
// is gathered first. Partial passes (a view only rearranges values).

#include <ATen/ATen.h>
#include <ATen/InferSize.h>
#include <c10/util/accumulate.h>

#include "RuleTable.h"
#include "ViewSupport.h"

namespace meshguard {
namespace ops {

namespace {

RuleResult permute_like(
    const CallInfo& call,
    const std::vector<int64_t>& perm) {
  const Shape& in = call.operands[0].shape;
  Shape out(perm.size());
  std::vector<int64_t> dim_map(in.size(), -1);
  for (size_t i = 0; i < perm.size(); ++i) {
    out[i] = in[perm[i]];
    dim_map[perm[i]] = static_cast<int64_t>(i);
  }
  return map_rule(call, dim_map, out);
}

std::vector<int64_t> identity_perm(size_t n) {
  std::vector<int64_t> p(n);
  for (size_t i = 0; i < n; ++i) {
    p[i] = static_cast<int64_t>(i);
  }
  return p;
}

RuleResult transpose_rule(const CallInfo& call, int64_t a, int64_t b) {
  const int64_t ndim = static_cast<int64_t>(call.operands[0].shape.size());
  auto perm = identity_perm(ndim);
  if (ndim >= 2) {
    std::swap(perm[wrap_dim(a, ndim)], perm[wrap_dim(b, ndim)]);
  }
  return permute_like(call, perm);
}

// Groups input and output dims whose products match (view's dim algebra);
// a shard on the outermost input dim of a group moves to the outermost
// output dim when both split into equal chunks (then both sides' chunks are
// the same contiguous blocks of numel / k elements).
RuleResult reshape_rule(
    const CallInfo& call,
    const std::vector<int64_t>& size_arg,
    bool use_view) {
  const Shape& in = call.operands[0].shape;
  const int64_t numel = c10::multiply_integers(in);
  const Shape out = at::infer_size(size_arg, numel);
  std::vector<int64_t> dim_map(in.size(), -1);
  // How many blocks a dim can end up split into: the shards of the mesh dims
  // that shard something now (nested, a tensor dim splits into the product
  // of their sizes). A mesh dim that replicates stays so (the propagator
  // prefers the fewest changes at equal cost), so [R, S(0)] on a 2x2 mesh
  // needs sizes divisible by 2, not 4.
  int64_t k = 1;
  for (size_t m = 0; m < call.mesh_shape.size(); ++m) {
    if (is_shard(call.operands[0].placements[m])) {
      k *= call.mesh_shape[m];
    }
  }
  if (numel > 0) {
    size_t i = 0, j = 0;
    while (i < in.size() && j < out.size()) {
      const size_t gi = i, gj = j;
      int64_t pin = in[i++], pout = out[j++];
      while (pin != pout) {
        if (pin < pout) {
          pin *= in[i++];
        } else {
          pout *= out[j++];
        }
      }
      // Size-1 dims carry no elements: the group's outermost dims are its
      // first dims longer than 1 (a [1, n] -> [n] view keeps a shard of n).
      size_t fi = gi, fj = gj;
      while (fi + 1 < i && in[fi] == 1) {
        ++fi;
      }
      while (fj + 1 < j && out[fj] == 1) {
        ++fj;
      }
      size_t long_in = 0, long_out = 0;
      for (size_t a = gi; a < i; ++a) {
        long_in += in[a] != 1;
      }
      for (size_t b = gj; b < j; ++b) {
        long_out += out[b] != 1;
      }
      const bool one_to_one = long_in <= 1 && long_out <= 1;
      if (one_to_one || (divisible(in[fi], k) && divisible(out[fj], k))) {
        dim_map[fi] = static_cast<int64_t>(fj);
      }
    }
  }
  RuleResult r = map_rule(call, dim_map, out);
  r.run_local = [use_view](
                    const std::vector<at::Tensor>& locals,
                    const LocalContext& ctx) {
    return std::vector<at::Tensor>{
        use_view ? locals[0].view((*ctx.output_shapes)[0])
                 : locals[0].reshape((*ctx.output_shapes)[0])};
  };
  return r;
}

RuleResult expand_rule(
    const CallInfo& call,
    const std::vector<int64_t>& size_arg) {
  const Shape& in = call.operands[0].shape;
  const int64_t lead = static_cast<int64_t>(size_arg.size() - in.size());
  TORCH_CHECK(lead >= 0, "expand rule: fewer sizes than dims");
  Shape out(size_arg.begin(), size_arg.end());
  std::vector<int64_t> dim_map(in.size(), -1);
  for (int64_t d = 0; d < static_cast<int64_t>(in.size()); ++d) {
    if (out[d + lead] == -1) {
      out[d + lead] = in[d];
    }
    if (out[d + lead] == in[d]) {
      dim_map[d] = d + lead;
    }
  }
  RuleResult r = map_rule(call, dim_map, out);
  r.run_local = [](const std::vector<at::Tensor>& locals,
                   const LocalContext& ctx) {
    return std::vector<at::Tensor>{locals[0].expand((*ctx.output_shapes)[0])};
  };
  return r;
}

// repeat(self, repeats): tiles each dim (and prepends the extra ones); a
// shard survives on a dim repeated once. Linear and value-preserving: a
// Partial passes.
RuleResult repeat_rule(const CallInfo& call) {
  const Shape& in = call.operands[0].shape;
  const std::vector<int64_t> repeats = call.arg(1).toIntVector();
  const int64_t lead = static_cast<int64_t>(repeats.size() - in.size());
  TORCH_CHECK(lead >= 0, "repeat rule: fewer repeats than dims");
  Shape out(repeats.begin(), repeats.end());
  std::vector<int64_t> dim_map(in.size(), -1);
  for (int64_t d = 0; d < static_cast<int64_t>(in.size()); ++d) {
    out[d + lead] *= in[d];
    if (repeats[d + lead] == 1) {
      dim_map[d] = d + lead;
    }
  }
  return map_rule(call, dim_map, out);
}

// flip(self, dims): reverses the flipped dims, which must be whole (a
// shard's reversal is not the reversed tensor's shard); others stay.
RuleResult flip_rule(const CallInfo& call) {
  const Shape& in = call.operands[0].shape;
  const int64_t ndim = static_cast<int64_t>(in.size());
  std::vector<int64_t> dim_map = identity_perm(in.size());
  for (int64_t d : call.arg(1).toIntVector()) {
    if (ndim > 0) {
      dim_map[wrap_dim(d, ndim)] = -1;
    }
  }
  return map_rule(call, dim_map, in);
}

// Several outputs (split, unbind): each input dim d's shard becomes Shard
// (dim_map[d]) of every output; R and Partial pass to all of them.
RuleResult multi_map_rule(
    const CallInfo& call,
    const std::vector<int64_t>& dim_map,
    std::vector<Shape> outs) {
  RuleResult r;
  const size_t n = outs.size();
  for (size_t d = 0; d < dim_map.size(); ++d) {
    if (dim_map[d] >= 0) {
      r.strategies.push_back(
          {{Shard{static_cast<int64_t>(d)}},
           std::vector<Placement>(n, Shard{dim_map[d]})});
    }
  }
  r.strategies.push_back(
      {{Replicate{}}, std::vector<Placement>(n, Replicate{})});
  for (const auto& p : call.operands[0].placements) {
    if (is_partial(p)) {
      r.strategies.push_back({{p}, std::vector<Placement>(n, p)});
    }
  }
  r.output_shapes = std::move(outs);
  return r;
}

// slice(dim, start, end, step) as torch computes it: the first index and
// the length, start and end clamped to [0, size].
struct SliceRange {
  int64_t start = 0;
  int64_t length = 0;
  bool whole = false; // every element, in order: a shard on dim survives
};

SliceRange slice_range(
    int64_t size,
    const c10::IValue& start_arg,
    const c10::IValue& end_arg,
    int64_t step) {
  TORCH_CHECK(step > 0, "slice step must be positive");
  auto clamp = [size](int64_t v) {
    v = v < 0 ? v + size : v;
    return std::min(std::max<int64_t>(v, 0), size);
  };
  const int64_t start = start_arg.isNone() ? 0 : clamp(start_arg.toInt());
  const int64_t end =
      std::max(start, end_arg.isNone() ? size : clamp(end_arg.toInt()));
  SliceRange r;
  r.start = start;
  r.length = (end - start + step - 1) / step;
  r.whole = start == 0 && end == size && step == 1;
  return r;
}

std::vector<int64_t> identity_map(size_t n) {
  return identity_perm(n);
}

// slice.Tensor(self, dim, start, end, step): a shard on the sliced dim
// stays only for the whole dim (torch.chunk's pieces of a part are not the
// parts of the pieces), else it is gathered, as in PyTorch.
RuleResult slice_rule(const CallInfo& call) {
  const Shape& in = call.operands[0].shape;
  const int64_t dim =
      wrap_dim(call.arg(1).toInt(), static_cast<int64_t>(in.size()));
  const SliceRange range =
      slice_range(in[dim], call.arg(2), call.arg(3), call.arg(4).toInt());
  Shape out = in;
  out[dim] = range.length;
  auto dim_map = identity_map(in.size());
  if (!range.whole) {
    dim_map[dim] = -1;
  }
  return map_rule(call, dim_map, out);
}

// slice_backward(grad, input_sizes, dim, start, end, step): the gradient
// padded with zeros to the input's shape (zeros on every rank: any
// Partial stays exact); sharded dims follow as in slice.
RuleResult slice_backward_rule(const CallInfo& call) {
  const Shape in = call.arg(1).toIntVector();
  const int64_t dim =
      wrap_dim(call.arg(2).toInt(), static_cast<int64_t>(in.size()));
  const SliceRange range =
      slice_range(in[dim], call.arg(3), call.arg(4), call.arg(5).toInt());
  auto dim_map = identity_map(in.size());
  if (!range.whole) {
    dim_map[dim] = -1;
  }
  RuleResult r = map_rule(call, dim_map, in);
  r.run_local = [](const std::vector<at::Tensor>& locals,
                   const LocalContext& ctx) {
    return std::vector<at::Tensor>{at::slice_backward(
        locals[0],
        (*ctx.output_shapes)[0],
        ctx.args[2].toInt(),
        ctx.args[3].toInt(),
        ctx.args[4].toInt(),
        ctx.args[5].toInt())};
  };
  return r;
}

// select.int(self, dim, index): the selected dim must be whole.
RuleResult select_rule(const CallInfo& call) {
  const Shape& in = call.operands[0].shape;
  const int64_t dim =
      wrap_dim(call.arg(1).toInt(), static_cast<int64_t>(in.size()));
  Shape out = in;
  out.erase(out.begin() + dim);
  std::vector<int64_t> dim_map(in.size(), -1);
  for (int64_t d = 0; d < static_cast<int64_t>(in.size()); ++d) {
    dim_map[d] = d < dim ? d : (d > dim ? d - 1 : -1);
  }
  return map_rule(call, dim_map, out);
}

// select_backward(grad, input_sizes, dim, index): the gradient's dims are
// the input's but `dim`.
RuleResult select_backward_rule(const CallInfo& call) {
  const Shape in = call.arg(1).toIntVector();
  const Shape& grad = call.operands[0].shape;
  const int64_t dim =
      wrap_dim(call.arg(2).toInt(), static_cast<int64_t>(in.size()));
  std::vector<int64_t> dim_map(grad.size());
  for (int64_t d = 0; d < static_cast<int64_t>(grad.size()); ++d) {
    dim_map[d] = d < dim ? d : d + 1;
  }
  RuleResult r = map_rule(call, dim_map, in);
  r.run_local = [](const std::vector<at::Tensor>& locals,
                   const LocalContext& ctx) {
    return std::vector<at::Tensor>{at::select_backward(
        locals[0],
        (*ctx.output_shapes)[0],
        ctx.args[2].toInt(),
        ctx.args[3].toInt())};
  };
  return r;
}

// split / split_with_sizes / unbind along `dim`: pieces of a sharded dim
// are not the shards' pieces, so that dim is gathered (as in PyTorch);
// other dims keep their shard in every piece.
RuleResult split_rule(
    const CallInfo& call,
    int64_t dim_arg,
    const std::vector<int64_t>& sizes,
    bool drop_dim) {
  const Shape& in = call.operands[0].shape;
  const int64_t dim =
      wrap_dim(call.arg(dim_arg).toInt(), static_cast<int64_t>(in.size()));
  std::vector<Shape> outs;
  for (int64_t len : sizes) {
    Shape piece = in;
    if (drop_dim) {
      piece.erase(piece.begin() + dim);
    } else {
      piece[dim] = len;
    }
    outs.push_back(std::move(piece));
  }
  std::vector<int64_t> dim_map(in.size(), -1);
  for (int64_t d = 0; d < static_cast<int64_t>(in.size()); ++d) {
    dim_map[d] = d == dim ? -1 : (drop_dim && d > dim ? d - 1 : d);
  }
  return multi_map_rule(call, dim_map, std::move(outs));
}

// torch.split's piece lengths: split_size each, the last shorter; one
// empty piece for an empty dim.
std::vector<int64_t> split_sizes(int64_t size, int64_t split_size) {
  TORCH_CHECK(
      split_size >= 0,
      "split expects split_size be non-negative, but got split_size=",
      split_size);
  TORCH_CHECK(
      split_size > 0 || size == 0,
      "split_size can only be 0 if dimension size is 0");
  const int64_t pieces = split_size == 0
      ? 1
      : std::max<int64_t>((size + split_size - 1) / split_size, 1);
  std::vector<int64_t> out;
  out.reserve(static_cast<size_t>(pieces));
  for (int64_t i = 0; i < pieces; ++i) {
    out.push_back(std::min(split_size, size - i * split_size));
  }
  return out;
}

// view.dtype(self, dtype): the same bytes read as another dtype; the last
// dim's length scales with the element sizes, so a shard stays on the other
// dims (and on the last when the sizes match). A Partial's bits are no
// values to reduce: it is reduced first.
RuleResult view_dtype_rule(const CallInfo& call) {
  const Shape& in = call.operands[0].shape;
  const auto from = static_cast<int64_t>(call.arg(0).toTensor().element_size());
  const auto to =
      static_cast<int64_t>(c10::elementSize(call.arg(1).toScalarType()));
  Shape out = in;
  if (from != to && !out.empty()) {
    out.back() = out.back() * from / to;
  }
  RuleResult r;
  for (size_t d = 0; d < in.size(); ++d) {
    if (from == to || d + 1 < in.size()) {
      r.strategies.push_back(
          {{Shard{static_cast<int64_t>(d)}}, {Shard{static_cast<int64_t>(d)}}});
    }
  }
  r.strategies.push_back({{Replicate{}}, {Replicate{}}});
  r.output_shapes = {std::move(out)};
  return r;
}

} // namespace

void add_view_rules(RuleTable& table) {
  const std::string whole =
      "S(d) → S(d) for a dim other than `dim` (and for `dim` when the slice takes all of "
      "it, in order), else gathered; R → R; P(op) → P(op)";
  table["aten::slice.Tensor"] = {"view", whole, slice_rule};
  table["aten::slice_backward.default"] = {
      "view",
      whole + " (the gradient: zeros around it on every rank)",
      slice_backward_rule};
  const std::string drop =
      "S(d) → S(d') for d ≠ `dim` (renumbered); a sharded `dim` is gathered; R → R; "
      "P(op) → P(op)";
  table["aten::select.int"] = {"view", drop, select_rule};
  table["aten::select_backward.default"] = {
      "view",
      "S(d') → S(d) (the gradient's dims, `dim` inserted); R → R; "
      "P(op) → P(op)",
      select_backward_rule};
  const std::string pieces =
      "S(d) → S(d) in every piece for d ≠ `dim`; a sharded `dim` is gathered; R → R; "
      "P(op) → P(op)";
  table["aten::split.Tensor"] = {
      "view", pieces, [](const CallInfo& c) {
        const Shape& in = c.operands[0].shape;
        const int64_t dim =
            wrap_dim(c.arg(2).toInt(), static_cast<int64_t>(in.size()));
        return split_rule(c, 2, split_sizes(in[dim], c.arg(1).toInt()), false);
      }};
  table["aten::split_with_sizes.default"] = {
      "view", pieces, [](const CallInfo& c) {
        return split_rule(c, 2, c.arg(1).toIntVector(), false);
      }};
  table["aten::unbind.int"] = {
      "view", drop, [](const CallInfo& c) {
        const Shape& in = c.operands[0].shape;
        const int64_t dim =
            wrap_dim(c.arg(1).toInt(), static_cast<int64_t>(in.size()));
        return split_rule(c, 1, std::vector<int64_t>(in[dim], 1), true);
      }};
  const std::string follow = "S(d) → S(d') where d goes; R → R; P(op) → P(op)";
  table["aten::t.default"] = {"view", follow, [](const CallInfo& c) {
                                return transpose_rule(c, 0, 1);
                              }};
  table["aten::transpose.int"] = {"view", follow, [](const CallInfo& c) {
                                    return transpose_rule(
                                        c, c.arg(1).toInt(), c.arg(2).toInt());
                                  }};
  table["aten::permute.default"] = {
      "view", follow, [](const CallInfo& c) {
        auto dims = c.arg(1).toIntVector();
        const auto ndim = static_cast<int64_t>(c.operands[0].shape.size());
        for (auto& d : dims) {
          d = wrap_dim(d, ndim);
        }
        return permute_like(c, dims);
      }};
  const std::string reshape =
      "S(d) → S(d') when d is the outermost dim of a merged/split group and both d and d' "
      "divide by the mesh size (even chunks), else gathered; R → R; P(op) → P(op)";
  table["aten::view.default"] = {"view", reshape, [](const CallInfo& c) {
                                   return reshape_rule(
                                       c, c.arg(1).toIntVector(), true);
                                 }};
  table["aten::_unsafe_view.default"] = {
      "view", reshape, [](const CallInfo& c) {
        return reshape_rule(c, c.arg(1).toIntVector(), false);
      }};
  table["aten::_reshape_alias.default"] = {
      "view", reshape, [](const CallInfo& c) {
        return reshape_rule(c, c.arg(1).toIntVector(), false);
      }};
  RuleEntry view_dtype{
      "view",
      "S(d) → S(d) (not the last dim when the element sizes differ); R → R; P(op) reduced first",
      view_dtype_rule};
  view_dtype.keys_tensor_kinds = true; // self's element size
  table["aten::view.dtype"] = std::move(view_dtype);
  table["aten::expand.default"] = {
      "view",
      "S(d) → S(d') for a dim that is not broadcast; R → R; P(op) → P(op)",
      [](const CallInfo& c) { return expand_rule(c, c.arg(1).toIntVector()); }};
  table["aten::repeat.default"] = {
      "view",
      "S(d) → S(d') for a dim repeated once; R → R; P(op) → P(op)",
      repeat_rule};
  // Not a view (flip copies): its out= form is derived (Variants.cpp).
  table["aten::flip.default"] = {
      "along-dim",
      "S(d) → S(d) for a dim not flipped; R → R; P(op) → P(op)",
      flip_rule};
}

} // namespace ops
} // namespace meshguard
