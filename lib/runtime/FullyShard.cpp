// fully_shard and the gathered-parameter scope.

#include <meshguard/runtime/FullyShard.h>

#include <ATen/ATen.h>

#include <meshguard/runtime/DTensor.h>
#include <meshguard/runtime/Errors.h>
#include <meshguard/runtime/Module.h>
#include <meshguard/runtime/Parallelize.h>

#include "GroupedGather.h"
#include "Internal.h"
#include "ParallelStyleInternal.h"

namespace meshguard {

namespace detail {
// Module.cpp: replaces a parameter in the registry and the built-in
// layers' public member.
void replace_parameter(
    torch::nn::Module& module,
    const std::string& name,
    const at::Tensor& value);
} // namespace detail

namespace {

// A parameter to shard and the placements it gets.
struct ShardPlan {
  torch::nn::Module* owner;
  std::string name; // in the owner
  at::Tensor param;
  Placements placements;
  bool tensor_parallel; // a 1-D DTensor of parallelize_module on the other
                        // mesh dim
};

// The tensor dim FSDP shards a tensor-parallel parameter on: the first dim
// the TP placement leaves whole, so that the two shardings are independent
// (nested chunks of different dims commute). -1 when TP shards the only dim
// (a column-parallel bias): that parameter stays Replicate on the dp dim.
int64_t fsdp_dim_beside(const Placement& tp, int64_t ndim) {
  for (int64_t d = 0; d < ndim; ++d) {
    if (!is_shard(tp, d)) {
      return d;
    }
  }
  return -1;
}

std::vector<std::pair<std::string, torch::nn::Module*>> modules_with_names(
    torch::nn::Module& root) {
  std::vector<std::pair<std::string, torch::nn::Module*>> out{{"", &root}};
  for (const auto& item : root.named_modules("", /*include_self=*/false)) {
    out.emplace_back(item.key(), item.value().get());
  }
  return out;
}

ShardPlan plan_parameter(
    torch::nn::Module* owner,
    const std::string& qualified,
    const std::string& name,
    const at::Tensor& param,
    const DeviceMesh& mesh,
    int64_t dp_dim,
    const std::optional<DeviceMesh>& tp_mesh) {
  Placements placements(mesh.ndim(), Replicate{});
  const DTensorImpl* impl = get_dtensor_impl(param);
  if (impl == nullptr) {
    // A 0-dim parameter cannot be sharded: Replicate, as FSDP2 does not
    // shard scalars either.
    if (param.dim() > 0) {
      placements[dp_dim] = Shard{0};
    }
    return {owner, name, param, placements, false};
  }
  const DeviceMesh& param_mesh = impl->spec().mesh;
  if (!tp_mesh || param_mesh != *tp_mesh) {
    throw PlacementError(
        "fully_shard: parameter '" + qualified + "' already is a DTensor (on " +
        param_mesh.to_string() + ")" +
        (tp_mesh
             ? "; on a 2-D mesh fully_shard accepts the parameters that parallelize_module put on " +
                 tp_mesh->to_string() + " (mesh_dim_mesh of the other dim)"
             : std::string()));
  }
  const Placement tp = impl->spec().placements[0];
  if (is_partial(tp)) {
    throw PlacementError(
        "fully_shard: parameter '" + qualified + "' is " + to_string(tp) +
        " on the tp dim");
  }
  const int64_t dim = fsdp_dim_beside(tp, param.dim());
  if (dim >= 0) {
    placements[dp_dim] = Shard{dim};
  }
  placements[1 - dp_dim] = tp;
  return {owner, name, param, placements, true};
}

// The tensor-parallel shard, split over the dp dim: the same global value.
at::Tensor shard_tensor_parallel(
    const ShardPlan& plan,
    const DeviceMesh& mesh,
    int64_t dp_dim) {
  const DTensorImpl* impl = get_dtensor_impl(plan.param);
  // Rank 0's values win, as for plain parameters: parallelize_module
  // broadcast within each tp group only.
  Placements whole = plan.placements;
  whole[dp_dim] = Replicate{};
  at::Tensor replicated = make_dtensor(
      impl->local().detach().clone(),
      DTensorSpec{mesh, whole, impl->spec().shape});
  detail::broadcast_on(mesh, {replicated}, 0, dp_dim);
  at::Tensor local = get_dtensor_impl(replicated)->local();
  if (auto* s = std::get_if<Shard>(&plan.placements[dp_dim])) {
    local = detail::chunk_of(
                local, s->dim, mesh.size(dp_dim), mesh.coordinate()[dp_dim])
                .contiguous()
                .clone();
  }
  return make_dtensor(
      local, DTensorSpec{mesh, plan.placements, impl->spec().shape});
}

} // namespace

void fully_shard(torch::nn::Module& module, const DeviceMesh& mesh) {
  if (mesh.ndim() != 1) {
    throw PlacementError(
        "fully_shard: without a mesh dim it runs on a 1-D data-parallel mesh, got " +
        mesh.to_string() +
        "; for one dim of a 2-D mesh pass fully_shard(module, mesh, dp_dim)");
  }
  fully_shard(module, mesh, 0);
}

void fully_shard(
    torch::nn::Module& module,
    const DeviceMesh& mesh,
    int64_t mesh_dim) {
  if (mesh.ndim() > 2 || mesh_dim < 0 || mesh_dim >= mesh.ndim()) {
    throw PlacementError(
        "fully_shard: runs on a 1-D mesh or on one dim of a 2-D mesh, got mesh dim " +
        std::to_string(mesh_dim) + " of " + mesh.to_string());
  }
  std::optional<DeviceMesh> tp_mesh;
  if (mesh.ndim() == 2) {
    tp_mesh = mesh_dim_mesh(mesh, 1 - mesh_dim);
  }
  // Every parameter is checked before any changes.
  std::vector<ShardPlan> plans;
  for (const auto& m : modules_with_names(module)) {
    for (const auto& p : m.second->named_parameters(/*recurse=*/false)) {
      if (!p.value().defined()) {
        continue;
      }
      const std::string qualified =
          m.first.empty() ? p.key() : m.first + "." + p.key();
      plans.push_back(plan_parameter(
          m.second, qualified, p.key(), p.value(), mesh, mesh_dim, tp_mesh));
    }
  }
  for (const auto& plan : plans) {
    at::Tensor sharded;
    {
      at::NoGradGuard no_grad;
      sharded = plan.tensor_parallel
          ? shard_tensor_parallel(plan, mesh, mesh_dim)
          : distribute_tensor(plan.param.detach(), mesh, plan.placements);
    }
    sharded.set_requires_grad(plan.param.requires_grad());
    detail::replace_parameter(*plan.owner, plan.name, sharded);
  }
  if (tp_mesh) {
    detail::move_parallel_styles(module, *tp_mesh, mesh, 1 - mesh_dim);
  }
}

namespace {

// Parameters whose gather is one Shard -> Replicate step on the same mesh
// dim, of one mesh and dtype: gathered together, in one collective.
struct GatherGroup {
  DeviceMesh mesh;
  int64_t mesh_dim;
  at::ScalarType dtype;
  std::vector<std::pair<torch::nn::Module*, std::string>> where;
  std::vector<at::Tensor> sharded;
  std::vector<bool> plain; // handed as a plain tensor (local activations)
};

GatherGroup& group_for(
    std::vector<GatherGroup>& groups,
    const at::Tensor& sharded,
    int64_t mesh_dim) {
  const DeviceMesh& mesh = get_dtensor_impl(sharded)->spec().mesh;
  for (auto& g : groups) {
    if (g.mesh_dim == mesh_dim && g.dtype == sharded.scalar_type() &&
        g.mesh == mesh) {
      return g;
    }
  }
  groups.push_back({mesh, mesh_dim, sharded.scalar_type(), {}, {}, {}});
  return groups.back();
}

// Under local activations (the styles hand back local tensors), a module
// without a style computes on this rank's rows as a plain tensor, as under
// FSDP2: its parameter is the gathered value's local tensor, whose gradient
// is each rank's rows' share (Partial on dp; the same on every tp rank,
// which computed the same rows: Replicate there).
at::Tensor handed(
    const at::Tensor& gathered,
    bool plain,
    const std::optional<int64_t>& dp_dim) {
  if (!plain) {
    return gathered;
  }
  Placements grad(placements_of(gathered)->size(), Replicate{});
  grad[*dp_dim] = Partial{};
  return to_local(gathered, grad);
}

} // namespace

GatheredParameters::GatheredParameters(torch::nn::Module& module) {
  std::vector<torch::nn::Module*> modules{&module};
  for (const auto& child : module.modules(/*include_self=*/false)) {
    modules.push_back(child.get());
  }
  const std::optional<int64_t> local_dp =
      detail::local_activations_dp_dim(module);
  try {
    std::vector<GatherGroup> groups;
    for (torch::nn::Module* m : modules) {
      const std::optional<int64_t> style_dim =
          detail::parallel_style_mesh_dim(*m);
      for (const auto& p : m->named_parameters(/*recurse=*/false)) {
        const at::Tensor sharded = p.value();
        auto placements = placements_of(sharded);
        if (!placements) {
          continue;
        }
        const bool plain = local_dp.has_value() && !style_dim &&
            static_cast<int64_t>(placements->size()) > *local_dp;
        // Replicate on every mesh dim but a tensor-parallel style's.
        Placements target(placements->size(), Replicate{});
        if (style_dim && *style_dim < static_cast<int64_t>(target.size())) {
          target[*style_dim] = (*placements)[*style_dim];
        }
        // A parameter already in place still goes through redistribute when
        // it takes a gradient: its backward turns the gradient's Partial on
        // the dp dim (the batch is sharded there) into the parameter's
        // placement, an all-reduce (a Replicate parameter must not get a
        // partial gradient).
        const bool differentiable =
            at::GradMode::is_enabled() && sharded.requires_grad();
        if (target == *placements && !differentiable && !plain) {
          continue;
        }
        entries_.push_back({m, p.key(), sharded});
        const std::optional<int64_t> dp_dim =
            detail::single_unshard_dim(*placements, target);
        if (dp_dim && sharded.is_floating_point()) {
          GatherGroup& g = group_for(groups, sharded, *dp_dim);
          g.where.emplace_back(m, p.key());
          g.sharded.push_back(sharded);
          g.plain.push_back(plain);
          continue;
        }
        detail::replace_parameter(
            *m,
            p.key(),
            handed(redistribute(sharded, target), plain, local_dp));
      }
    }
    for (const GatherGroup& g : groups) {
      const std::vector<at::Tensor> gathered =
          detail::gather_together(g.sharded, g.mesh_dim);
      for (size_t i = 0; i < gathered.size(); ++i) {
        detail::replace_parameter(
            *g.where[i].first,
            g.where[i].second,
            handed(gathered[i], g.plain[i], local_dp));
      }
    }
  } catch (...) {
    this->~GatheredParameters();
    throw;
  }
}

GatheredParameters::~GatheredParameters() {
  detail::forget_plain_reads();
  for (auto it = entries_.rbegin(); it != entries_.rend(); ++it) {
    detail::replace_parameter(*it->owner, it->name, it->sharded);
  }
  entries_.clear();
}

} // namespace meshguard
