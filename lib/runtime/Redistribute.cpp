// Shard arithmetic (torch.chunk semantics) and redistribute: the same global
// value under new placements, one mesh dimension at a time.

#include <algorithm>

#include <ATen/ATen.h>
#include <torch/csrc/autograd/custom_function.h>

#include <meshguard/runtime/DTensor.h>
#include <meshguard/runtime/Errors.h>

#include "ConsistencyCheck.h"
#include "Internal.h"
#include "compat/TorchCompat.h"

namespace meshguard {
namespace detail {

int64_t chunk_size(int64_t n, int64_t k) {
  return (n + k - 1) / k;
}

int64_t chunk_offset(int64_t n, int64_t k, int64_t index) {
  return std::min(n, chunk_size(n, k) * index);
}

int64_t chunk_length(int64_t n, int64_t k, int64_t index) {
  return std::max<int64_t>(
      0,
      std::min(n, chunk_offset(n, k, index) + chunk_size(n, k)) -
          chunk_offset(n, k, index));
}

at::Tensor
chunk_of(const at::Tensor& t, int64_t dim, int64_t k, int64_t index) {
  const int64_t n = t.size(dim);
  return t.narrow(dim, chunk_offset(n, k, index), chunk_length(n, k, index));
}

std::vector<int64_t> local_shape(
    const std::vector<int64_t>& global_shape,
    const Placements& placements,
    const DeviceMesh& mesh,
    const std::vector<int64_t>& coordinate) {
  auto shape = global_shape;
  for (size_t i = 0; i < placements.size(); ++i) {
    if (auto* s = std::get_if<Shard>(&placements[i])) {
      shape[s->dim] = chunk_length(
          shape[s->dim], mesh.size(static_cast<int64_t>(i)), coordinate[i]);
    }
  }
  return shape;
}

Placements normalize_placements(
    const Placements& placements,
    int64_t tensor_dim) {
  Placements out = placements;
  for (auto& p : out) {
    if (auto* s = std::get_if<Shard>(&p)) {
      if (s->dim < 0 && s->dim + tensor_dim >= 0) {
        s->dim += tensor_dim;
      }
    }
  }
  return out;
}

void validate_placements(
    const Placements& placements,
    const DeviceMesh& mesh,
    int64_t tensor_dim) {
  if (static_cast<int64_t>(placements.size()) != mesh.ndim()) {
    throw PlacementError(
        "need one placement per mesh dimension: got " +
        std::to_string(placements.size()) + " placements " +
        to_string(placements) + " for the " + std::to_string(mesh.ndim()) +
        "-d " + mesh.to_string());
  }
  for (const auto& p : placements) {
    if (auto* s = std::get_if<Shard>(&p)) {
      if (s->dim < 0 || s->dim >= tensor_dim) {
        throw PlacementError(
            to_string(p) + " is out of range for a " +
            std::to_string(tensor_dim) +
            "-d tensor (shard dims must be in [0, " +
            std::to_string(tensor_dim) + "))");
      }
    }
  }
}

void check_device(
    const at::Tensor& local,
    const DeviceMesh& mesh,
    const char* what) {
  const c10::Device want = mesh.device();
  if (local.device().type() != want.type()) {
    throw PlacementError(
        std::string(what) + ": a " + local.device().str() +
        " tensor cannot live on " + mesh.to_string() +
        "; move it with .to(mesh.device()) (" + want.str() + ") first");
  }
  // NCCL would run on the tensor's GPU while the group's peers use theirs.
  if (want.is_cuda() && local.device().index() != want.index()) {
    throw PlacementError(
        std::string(what) + ": a " + local.device().str() +
        " tensor cannot live on " + mesh.to_string() + ", whose rank " +
        std::to_string(mesh.get_rank()) + " uses " + want.str() +
        " (its LOCAL_RANK); move it with .to(mesh.device()) first");
  }
}

at::Tensor gather_shards(
    const at::Tensor& local,
    const DeviceMesh& mesh,
    int64_t mesh_dim,
    int64_t dim,
    int64_t full_size) {
  const int64_t k = mesh.size(mesh_dim);
  const int64_t cs = chunk_size(full_size, k);
  if (k == 1) {
    return local;
  }
  if (local.scalar_type() == at::kBool) {
    // Gloo has no bool ("Invalid scalar type"): masks travel as bytes.
    return gather_shards(local.to(at::kByte), mesh, mesh_dim, dim, full_size)
        .to(at::kBool);
  }
  auto padded_shape = local.sizes().vec();
  padded_shape[dim] = cs;
  // Nothing to send (every shard of the group is empty): Gloo divides by the
  // element count and dies with SIGFPE on a zero-sized all-gather. The
  // group agrees on this, since its ranks differ only in coordinate mesh_dim.
  if (c10::multiply_integers(padded_shape) == 0) {
    auto shape = local.sizes().vec();
    shape[dim] = full_size;
    return at::empty(shape, local.options());
  }
  // Gloo gathers equal-sized buffers: pad each shard to the chunk size.
  at::Tensor padded = at::zeros(padded_shape, local.options());
  padded.narrow(dim, 0, local.size(dim)).copy_(local);
  std::vector<at::Tensor> outputs;
  outputs.reserve(k);
  for (int64_t j = 0; j < k; ++j) {
    outputs.push_back(at::empty_like(padded));
  }
  compat::all_gather(mesh.get_group(mesh_dim), outputs, padded, mesh.timeout());
  std::vector<at::Tensor> pieces;
  pieces.reserve(k);
  for (int64_t j = 0; j < k; ++j) {
    pieces.push_back(outputs[j].narrow(dim, 0, chunk_length(full_size, k, j)));
  }
  return at::cat(pieces, dim);
}

at::Tensor reduce_over(
    const at::Tensor& local,
    const DeviceMesh& mesh,
    int64_t mesh_dim,
    ReduceOp op) {
  std::vector<at::Tensor> buf{local.clone(at::MemoryFormat::Contiguous)};
  // A zero-sized reduction is a no-op (and a zero-sized Gloo call crashes).
  if (mesh.size(mesh_dim) > 1 && local.numel() > 0) {
    compat::all_reduce(mesh.get_group(mesh_dim), buf, op, mesh.timeout());
  }
  return buf[0];
}

at::Tensor scatter_reduced(
    const at::Tensor& local,
    const DeviceMesh& mesh,
    int64_t mesh_dim,
    int64_t dim,
    ReduceOp op) {
  const int64_t k = mesh.size(mesh_dim), n = local.size(dim),
                coord = mesh.coordinate()[mesh_dim];
  const int64_t block = chunk_size(n, k);
  if (k > 1 && local.numel() > 0 && block > 0) {
    // torch.chunk's blocks, the last ones short or empty: padded to equal
    // blocks along dim 0 for the collective, trimmed after.
    at::Tensor moved = local.movedim(dim, 0);
    std::vector<int64_t> padded_shape = moved.sizes().vec();
    padded_shape[0] = block * k;
    at::Tensor padded = at::zeros(padded_shape, local.options());
    padded.narrow(0, 0, n).copy_(moved);
    padded_shape[0] = block;
    at::Tensor out = at::empty(padded_shape, local.options());
    if (compat::reduce_scatter(
            mesh.get_group(mesh_dim), out, padded, op, mesh.timeout())) {
      return out.narrow(0, 0, chunk_length(n, k, coord))
          .movedim(0, dim)
          .contiguous();
    }
  }
  return chunk_of(reduce_over(local, mesh, mesh_dim, op), dim, k, coord)
      .contiguous()
      .clone();
}

at::Tensor
partition_value(const at::Tensor& value, ReduceOp op, int64_t coordinate) {
  switch (op) {
    case ReduceOp::SUM:
      return coordinate == 0 ? value.clone() : at::zeros_like(value);
    case ReduceOp::PRODUCT:
      return coordinate == 0 ? value.clone() : at::ones_like(value);
    default:
      return value.clone();
  }
}

} // namespace detail

namespace {

// The size of tensor dim `d` after the shards of mesh dims [0, upto) only.
int64_t size_before(
    const DTensorSpec& spec,
    const Placements& cur,
    int64_t upto,
    int64_t d) {
  int64_t n = spec.shape[d];
  const auto& coord = spec.mesh.coordinate();
  for (int64_t i = 0; i < upto; ++i) {
    if (is_shard(cur[i], d)) {
      n = detail::chunk_length(n, spec.mesh.size(i), coord[i]);
    }
  }
  return n;
}

} // namespace

namespace detail {

at::Tensor redistribute_local(
    const at::Tensor& local_in,
    const DTensorSpec& spec,
    const Placements& target) {
  const auto& mesh = spec.mesh;
  const int64_t nd = mesh.ndim();
  const auto& coord = mesh.coordinate();
  Placements cur = spec.placements;
  at::Tensor local = local_in;

  auto changes = [&](int64_t k) { return !(cur[k] == target[k]); };
  auto touches_dim = [&](int64_t k, int64_t d) {
    return is_shard(cur[k], d) || is_shard(target[k], d);
  };

  // Pass 1, innermost mesh dim first: undo shards (those that change, and
  // those nested inside a changing shard of the same tensor dim) and reduce
  // partials that do not become shards.
  for (int64_t i = nd - 1; i >= 0; --i) {
    if (auto* s = std::get_if<Shard>(&cur[i])) {
      bool unshard = changes(i);
      for (int64_t k = 0; k < i && !unshard; ++k) {
        unshard = changes(k) && touches_dim(k, s->dim);
      }
      if (unshard) {
        local = gather_shards(
            local, mesh, i, s->dim, size_before(spec, cur, i, s->dim));
        cur[i] = Replicate{};
      }
    } else if (auto* p = std::get_if<Partial>(&cur[i])) {
      if (changes(i) && !is_shard(target[i])) {
        local = reduce_over(local, mesh, i, p->reduce_op);
        cur[i] = Replicate{};
      }
    }
  }
  // Pass 2, outermost first: shard, reduce-scatter and partition.
  for (int64_t i = 0; i < nd; ++i) {
    if (cur[i] == target[i]) {
      continue;
    }
    if (auto* s = std::get_if<Shard>(&target[i])) {
      if (auto* p = std::get_if<Partial>(&cur[i])) {
        local = scatter_reduced(local, mesh, i, s->dim, p->reduce_op);
      } else {
        local = chunk_of(local, s->dim, mesh.size(i), coord[i])
                    .contiguous()
                    .clone();
      }
    } else if (auto* p = std::get_if<Partial>(&target[i])) {
      local = partition_value(local, p->reduce_op, coord[i]);
    }
    cur[i] = target[i];
  }
  return local;
}

} // namespace detail

namespace {

at::Tensor redistribute_plain(
    const at::Tensor& dtensor,
    const Placements& target) {
  auto* impl = get_dtensor_impl(dtensor);
  const DTensorSpec& spec = impl->spec();
  detail::validate_placements(
      target, spec.mesh, static_cast<int64_t>(spec.shape.size()));
  if (spec.placements == target) {
    return make_dtensor(impl->local(), spec);
  }
  at::Tensor local = detail::redistribute_local(impl->local(), spec, target);
  return make_dtensor(
      std::move(local), DTensorSpec{spec.mesh, target, spec.shape});
}

} // namespace

namespace detail {

std::vector<int64_t> encode_placements(const Placements& ps) {
  std::vector<int64_t> out;
  for (const auto& p : ps) {
    if (auto* s = std::get_if<Shard>(&p)) {
      out.push_back(s->dim);
    } else if (auto* q = std::get_if<Partial>(&p)) {
      out.push_back(-10 - static_cast<int64_t>(q->reduce_op));
    } else {
      out.push_back(-1);
    }
  }
  return out;
}

Placements decode_placements(const std::vector<int64_t>& codes) {
  Placements out;
  for (auto c : codes) {
    if (c >= 0) {
      out.emplace_back(Shard{c});
    } else if (c == -1) {
      out.emplace_back(Replicate{});
    } else {
      out.emplace_back(Partial{static_cast<ReduceOp>(-10 - c)});
    }
  }
  return out;
}

} // namespace detail

namespace {

struct RedistributeFn : public torch::autograd::Function<RedistributeFn> {
  static at::Tensor forward(
      torch::autograd::AutogradContext* ctx,
      const at::Tensor& dtensor,
      const Placements& target) {
    auto* impl = get_dtensor_impl(dtensor);
    ctx->saved_data["back"] =
        detail::encode_placements(impl->spec().placements);
    return redistribute_plain(dtensor, target);
  }

  // The gradient goes back to the input's layout, except on a mesh dim where
  // the input was Partial: there the gradient of a value that is a sum is the
  // output gradient as it is, Replicate or, when it is Partial itself (a
  // Partial -> Partial redistribute), still Partial: reducing it would be a
  // collective that changes nothing (as PyTorch's _redistribute_backward).
  static torch::autograd::variable_list backward(
      torch::autograd::AutogradContext* ctx,
      torch::autograd::variable_list grads) {
    at::Tensor g = grads[0];
    if (g.defined() && is_dtensor(g)) {
      Placements back =
          detail::decode_placements(ctx->saved_data["back"].toIntVector());
      const Placements& current = get_dtensor_impl(g)->spec().placements;
      for (size_t i = 0; i < back.size(); ++i) {
        if (is_partial(back[i])) {
          back[i] =
              is_partial(current[i]) ? current[i] : Placement(Replicate{});
        }
      }
      g = redistribute_plain(g, back);
    }
    return {g, at::Tensor()};
  }
};

} // namespace

at::Tensor redistribute(
    const at::Tensor& dtensor,
    const Placements& placements,
    CallSite where) {
  detail::UserCall call("redistribute", where, [&] {
    return detail::describe_operands({dtensor}) + " -> " +
        to_string(placements);
  });
  auto* impl = get_dtensor_impl(dtensor);
  if (impl == nullptr) {
    throw PlacementError(
        "redistribute: the argument is a plain at::Tensor, not a DTensor; make it one with distribute_tensor() "
        "or from_local()");
  }
  const auto& spec = impl->spec();
  const auto ndim = static_cast<int64_t>(spec.shape.size());
  const Placements target = detail::normalize_placements(placements, ndim);
  detail::validate_placements(target, spec.mesh, ndim);
  // As in PyTorch, only the propagator may create a Partial: a user's
  // redistribute keeps a Partial as it is or resolves it.
  for (size_t i = 0; i < target.size() && i < spec.placements.size(); ++i) {
    if (is_partial(target[i]) && !(spec.placements[i] == target[i])) {
      throw PlacementError(
          "redistribute: can not redistribute from " +
          to_string(spec.placements[i]) + " to " + to_string(target[i]) +
          " on mesh dim " + std::to_string(i) +
          ": redistributing to Partial is for internal use only (as in PyTorch); a Partial comes from an op "
          "(e.g. a matmul of Shard(1) by Shard(0)) or from from_local");
    }
  }
  if (at::GradMode::is_enabled() && dtensor.requires_grad()) {
    return RedistributeFn::apply(dtensor, target);
  }
  return redistribute_plain(dtensor, target);
}

} // namespace meshguard
