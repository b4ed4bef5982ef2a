// One all-gather (and, backward, one reduce-scatter) for the shards of many
// DTensors on one mesh dim (GroupedGather.h).
//
// The packed buffer: each tensor with its sharded dim moved to the front,
// padded to torch.chunk's chunk size (`block` rows) so that every rank
// sends as much, flattened, one after the other. The backward's buffer holds
// every rank's block of every gradient, rank by rank: the reduce-scatter's
// input.

#include "GroupedGather.h"

#include <ATen/ATen.h>
#include <torch/csrc/autograd/custom_function.h>

#include <meshguard/runtime/DTensor.h>

#include "Internal.h"
#include "compat/TorchCompat.h"

namespace meshguard {
namespace detail {

namespace {

// Where one tensor lies in a packed buffer.
struct Piece {
  int64_t dim; // the tensor dim sharded on the mesh dim
  int64_t full; // its length unsharded
  int64_t block; // torch.chunk's chunk size: each rank's rows, padded
  std::vector<int64_t> shape; // [block, the local's other dims...]

  int64_t numel() const {
    return c10::multiply_integers(shape);
  }
};

// `local` has the tensor's rows of the mesh dim's shard (forward) or all of
// them (backward); the other dims are as sharded on the other mesh dims,
// alike on every rank of the group.
Piece piece_of(const at::Tensor& local, int64_t dim, int64_t full, int64_t k) {
  std::vector<int64_t> shape = local.sizes().vec();
  shape.erase(shape.begin() + dim);
  const int64_t block = chunk_size(full, k);
  shape.insert(shape.begin(), block);
  return {dim, full, block, std::move(shape)};
}

// `rows` (dim first) in a zero tensor of `rows_total` rows, flattened.
at::Tensor padded_flat(const at::Tensor& rows, int64_t rows_total) {
  std::vector<int64_t> shape = rows.sizes().vec();
  shape[0] = rows_total;
  at::Tensor out = at::zeros(shape, rows.options());
  out.narrow(0, 0, rows.size(0)).copy_(rows);
  return out.reshape({-1});
}

// Rank `r`'s rows of piece `p`, found at `offset` in `buffer` (that rank's
// packed shards), trimmed to its chunk.
at::Tensor rows_of(
    const at::Tensor& buffer,
    int64_t offset,
    const Piece& p,
    int64_t k,
    int64_t r) {
  return buffer.narrow(0, offset, p.numel())
      .view(p.shape)
      .narrow(0, 0, chunk_length(p.full, k, r));
}

std::vector<at::Tensor> all_gather_packed(
    const std::vector<at::Tensor>& locals,
    const std::vector<Piece>& pieces,
    const DeviceMesh& mesh,
    int64_t mesh_dim) {
  const int64_t k = mesh.size(mesh_dim);
  std::vector<at::Tensor> flat;
  flat.reserve(locals.size());
  for (size_t j = 0; j < locals.size(); ++j) {
    flat.push_back(
        padded_flat(locals[j].movedim(pieces[j].dim, 0), pieces[j].block));
  }
  at::Tensor send = at::cat(flat);
  std::vector<at::Tensor> received(k, send);
  // Gloo divides by the element count: nothing to send is no collective
  // (the group agrees, its ranks' pieces having the same sizes).
  if (k > 1 && send.numel() > 0) {
    for (auto& r : received) {
      r = at::empty_like(send);
    }
    compat::all_gather(
        mesh.get_group(mesh_dim), received, send, mesh.timeout());
  }
  std::vector<at::Tensor> out;
  int64_t offset = 0;
  for (const Piece& p : pieces) {
    std::vector<at::Tensor> parts;
    parts.reserve(k);
    for (int64_t r = 0; r < k; ++r) {
      parts.push_back(rows_of(received[r], offset, p, k, r));
    }
    out.push_back(at::cat(parts).movedim(0, p.dim).contiguous());
    offset += p.numel();
  }
  return out;
}

std::vector<at::Tensor> reduce_scatter_packed(
    const std::vector<at::Tensor>& locals,
    const std::vector<Piece>& pieces,
    const DeviceMesh& mesh,
    int64_t mesh_dim) {
  const int64_t k = mesh.size(mesh_dim), coord = mesh.coordinate()[mesh_dim];
  std::vector<at::Tensor> by_rank;
  for (size_t j = 0; j < locals.size(); ++j) {
    at::Tensor all_rows =
        padded_flat(locals[j].movedim(pieces[j].dim, 0), pieces[j].block * k);
    by_rank.push_back(all_rows.view({k, pieces[j].numel()}));
  }
  at::Tensor send = at::cat(by_rank, 1).reshape({-1});
  const int64_t segment = send.numel() / k;
  at::Tensor mine = send;
  if (k > 1 && segment > 0) {
    mine = at::empty({segment}, send.options());
    if (!compat::reduce_scatter(
            mesh.get_group(mesh_dim),
            mine,
            send,
            ReduceOp::SUM,
            mesh.timeout())) {
      // libtorch 1.13's Gloo has no reduce-scatter.
      mine = reduce_over(send, mesh, mesh_dim, ReduceOp::SUM)
                 .narrow(0, coord * segment, segment);
    }
  } else {
    mine = send.narrow(0, coord * segment, segment);
  }
  std::vector<at::Tensor> out;
  int64_t offset = 0;
  for (const Piece& p : pieces) {
    out.push_back(
        rows_of(mine, offset, p, k, coord).movedim(0, p.dim).contiguous());
    offset += p.numel();
  }
  return out;
}

std::vector<at::Tensor> gather_plain(at::TensorList sharded, int64_t mesh_dim) {
  const DTensorSpec& first = get_dtensor_impl(sharded[0])->spec();
  const int64_t k = first.mesh.size(mesh_dim);
  std::vector<at::Tensor> locals;
  std::vector<Piece> pieces;
  for (const at::Tensor& t : sharded) {
    const DTensorImpl* impl = get_dtensor_impl(t);
    const int64_t d = std::get<Shard>(impl->spec().placements[mesh_dim]).dim;
    locals.push_back(impl->local());
    pieces.push_back(piece_of(impl->local(), d, impl->spec().shape[d], k));
  }
  std::vector<at::Tensor> gathered =
      all_gather_packed(locals, pieces, first.mesh, mesh_dim);
  std::vector<at::Tensor> out;
  for (size_t j = 0; j < sharded.size(); ++j) {
    const DTensorSpec& spec = get_dtensor_impl(sharded[j])->spec();
    Placements whole = spec.placements;
    whole[mesh_dim] = Replicate{};
    out.push_back(make_dtensor(
        std::move(gathered[j]), DTensorSpec{spec.mesh, whole, spec.shape}));
  }
  return out;
}

// The local tensor of gradient `g` with `back`'s placements on every mesh
// dim but `mesh_dim`, where it must be Partial(sum): ready to pack. A
// gradient Replicate on another dim where its parameter is Shard (a rule
// that computed the whole tensor-parallel parameter's gradient on every tp
// rank: the embedding's backward) takes its chunk there, locally. nullopt:
// any other gradient, which takes its own way back.
std::optional<at::Tensor>
packable_local(const DTensorImpl& g, const Placements& back, int64_t mesh_dim) {
  const Placements& have = g.spec().placements;
  const auto* partial = std::get_if<Partial>(&have[mesh_dim]);
  if (partial == nullptr || partial->reduce_op != ReduceOp::SUM ||
      !g.local().is_floating_point()) {
    return std::nullopt;
  }
  const DeviceMesh& mesh = g.spec().mesh;
  at::Tensor local = g.local();
  for (size_t i = 0; i < have.size(); ++i) {
    const auto dim = static_cast<int64_t>(i);
    if (dim == mesh_dim || have[i] == back[i]) {
      continue;
    }
    const auto* shard = std::get_if<Shard>(&back[i]);
    if (!is_replicate(have[i]) || shard == nullptr) {
      return std::nullopt;
    }
    local = chunk_of(local, shard->dim, mesh.size(dim), mesh.coordinate()[i]);
  }
  return local;
}

struct GatherTogetherFn : public torch::autograd::Function<GatherTogetherFn> {
  static torch::autograd::variable_list forward(
      torch::autograd::AutogradContext* ctx,
      at::TensorList sharded,
      int64_t mesh_dim) {
    std::vector<int64_t> codes;
    for (const at::Tensor& t : sharded) {
      const auto c = encode_placements(get_dtensor_impl(t)->spec().placements);
      codes.insert(codes.end(), c.begin(), c.end());
    }
    ctx->saved_data["mesh_dim"] = mesh_dim;
    ctx->saved_data["back"] = codes;
    return gather_plain(sharded, mesh_dim);
  }

  // Each gradient goes back to its input's placements; those Partial(sum)
  // on the mesh dim (the batch is sharded there) and Replicate-like
  // elsewhere share one reduce-scatter, any other takes its own way.
  static torch::autograd::variable_list backward(
      torch::autograd::AutogradContext* ctx,
      torch::autograd::variable_list grads) {
    const int64_t mesh_dim = ctx->saved_data["mesh_dim"].toInt();
    const std::vector<int64_t> codes = ctx->saved_data["back"].toIntVector();
    const size_t ndim = codes.size() / grads.size();
    torch::autograd::variable_list out(grads.size() + 1);
    std::vector<size_t> together;
    std::vector<at::Tensor> locals;
    std::vector<Piece> pieces;
    std::vector<Placements> backs(grads.size());
    for (size_t j = 0; j < grads.size(); ++j) {
      const at::Tensor& g = grads[j];
      if (!g.defined() || !is_dtensor(g)) {
        out[j] = g;
        continue;
      }
      backs[j] = decode_placements(std::vector<int64_t>(
          codes.begin() + j * ndim, codes.begin() + (j + 1) * ndim));
      const DTensorImpl* impl = get_dtensor_impl(g);
      const std::optional<at::Tensor> local =
          packable_local(*impl, backs[j], mesh_dim);
      const bool packable = local.has_value() &&
          (locals.empty() || local->scalar_type() == locals[0].scalar_type());
      if (!packable) {
        out[j] = make_dtensor(
            redistribute_local(impl->local(), impl->spec(), backs[j]),
            DTensorSpec{impl->spec().mesh, backs[j], impl->spec().shape});
        continue;
      }
      const int64_t d = std::get<Shard>(backs[j][mesh_dim]).dim;
      together.push_back(j);
      locals.push_back(*local);
      pieces.push_back(piece_of(
          *local, d, impl->spec().shape[d], impl->spec().mesh.size(mesh_dim)));
    }
    if (!together.empty()) {
      const DTensorSpec& first = get_dtensor_impl(grads[together[0]])->spec();
      std::vector<at::Tensor> reduced =
          reduce_scatter_packed(locals, pieces, first.mesh, mesh_dim);
      for (size_t i = 0; i < together.size(); ++i) {
        const size_t j = together[i];
        const DTensorSpec& spec = get_dtensor_impl(grads[j])->spec();
        out[j] = make_dtensor(
            std::move(reduced[i]),
            DTensorSpec{spec.mesh, backs[j], spec.shape});
      }
    }
    return out;
  }
};

} // namespace

std::optional<int64_t> single_unshard_dim(
    const Placements& from,
    const Placements& to) {
  std::optional<int64_t> found;
  for (size_t i = 0; i < from.size() && i < to.size(); ++i) {
    if (is_partial(from[i])) {
      return std::nullopt;
    }
    if (from[i] == to[i]) {
      continue;
    }
    if (found || !std::holds_alternative<Shard>(from[i]) ||
        !std::holds_alternative<Replicate>(to[i])) {
      return std::nullopt;
    }
    found = static_cast<int64_t>(i);
  }
  if (!found) {
    return std::nullopt;
  }
  // Nested shards of one tensor dim are not independent chunks.
  const int64_t d = std::get<Shard>(from[*found]).dim;
  for (size_t i = 0; i < from.size(); ++i) {
    if (static_cast<int64_t>(i) != *found && is_shard(from[i], d)) {
      return std::nullopt;
    }
  }
  return found;
}

std::vector<at::Tensor> gather_together(
    const std::vector<at::Tensor>& sharded,
    int64_t mesh_dim) {
  if (sharded.empty()) {
    return {};
  }
  bool differentiable = false;
  for (const at::Tensor& t : sharded) {
    differentiable = differentiable || t.requires_grad();
  }
  if (at::GradMode::is_enabled() && differentiable) {
    return GatherTogetherFn::apply(at::TensorList(sharded), mesh_dim);
  }
  return gather_plain(sharded, mesh_dim);
}

} // namespace detail
} // namespace meshguard
