// fully_shard and the gathered-parameter scope.

#include <meshguard/runtime/FullyShard.h>

#include <meshguard/runtime/DTensor.h>
#include <meshguard/runtime/Errors.h>
#include <meshguard/runtime/Module.h>

namespace meshguard {

namespace detail {
// Module.cpp: replaces a parameter in the registry and the built-in
// layers' public member.
void replace_parameter(torch::nn::Module& module, const std::string& name, const at::Tensor& value);
} // namespace detail

void fully_shard(torch::nn::Module& module, const DeviceMesh& mesh) {
  if (mesh.ndim() != 1) {
    throw PlacementError("fully_shard: runs on a 1-D data-parallel mesh, got " + mesh.to_string());
  }
  for (const auto& p : module.named_parameters(/*recurse=*/true)) {
    if (is_dtensor(p.value())) {
      throw PlacementError("fully_shard: parameter '" + p.key() + "' already is a DTensor");
    }
  }
  distribute_module(module, mesh, [](const std::string&, const at::Tensor& param, const DeviceMesh&) {
    // A 0-dim parameter cannot be sharded: Replicate, as FSDP2 does not
    // shard scalars either.
    return param.dim() == 0 ? Placements{Replicate{}} : Placements{Shard{0}};
  });
}

GatheredParameters::GatheredParameters(torch::nn::Module& module) {
  std::vector<torch::nn::Module*> modules{&module};
  for (const auto& child : module.modules(/*include_self=*/false)) {
    modules.push_back(child.get());
  }
  try {
    for (torch::nn::Module* m : modules) {
      for (const auto& p : m->named_parameters(/*recurse=*/false)) {
        const at::Tensor sharded = p.value();
        auto placements = placements_of(sharded);
        if (!placements) {
          continue;
        }
        bool all_replicate = true;
        for (const auto& pl : *placements) {
          all_replicate = all_replicate && is_replicate(pl);
        }
        if (all_replicate) {
          continue;
        }
        at::Tensor full = redistribute(sharded, Placements(placements->size(), Replicate{}));
        entries_.push_back({m, p.key(), sharded});
        detail::replace_parameter(*m, p.key(), full);
      }
    }
  } catch (...) {
    this->~GatheredParameters();
    throw;
  }
}

GatheredParameters::~GatheredParameters() {
  for (auto it = entries_.rbegin(); it != entries_.rend(); ++it) {
    detail::replace_parameter(*it->owner, it->name, it->sharded);
  }
  entries_.clear();
}

} // namespace meshguard
