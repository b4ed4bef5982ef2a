// Mesh-inferred collectives (meshguard::dist) and the errors that explain a
// missing or conflicting mesh.

#include <sstream>

#include <ATen/ATen.h>

#include <meshguard/runtime/Collectives.h>
#include <meshguard/runtime/DTensor.h>
#include <meshguard/runtime/DTensorImpl.h>
#include <meshguard/runtime/Errors.h>

#include "ConsistencyCheck.h"
#include "Internal.h"
#include "compat/TorchCompat.h"

namespace meshguard {

namespace {

constexpr const char* kBroadcast = "c10d.broadcast_.default";
constexpr const char* kAllReduce = "c10d.allreduce_.default";
constexpr const char* kAllGather = "c10d.allgather_.default";
constexpr const char* kReduceScatter = "c10d.reduce_scatter_.default";

// Every argument a DTensor on `mesh`, with a dense local; mesh_dim valid.
std::vector<DTensorImpl*> require_dtensors(
    const std::vector<at::Tensor>& tensors,
    const DeviceMesh& mesh,
    const char* op_name,
    int64_t mesh_dim) {
  std::vector<DTensorImpl*> impls;
  impls.reserve(tensors.size());
  for (size_t i = 0; i < tensors.size(); ++i) {
    auto* impl = get_dtensor_impl(tensors[i]);
    if (impl == nullptr) {
      throw PlacementError(
          std::string(op_name) +
          " got mixed torch.Tensor and DTensor, need to convert all torch.Tensor to DTensor before calling "
          "distributed operators!\nArgument " +
          std::to_string(i) + " is " + detail::describe_arg(tensors[i]) +
          "; meshguard::guarded:: collectives promote it for you.");
    }
    if (!(impl->spec().mesh == mesh)) {
      throw MeshMismatchError(
          std::string(op_name) + ": argument " + std::to_string(i) +
          " is a DTensor on " + impl->spec().mesh.to_string() +
          " but the collective runs on " + mesh.to_string());
    }
    if (!impl->local().is_contiguous()) {
      throw PlacementError(
          std::string(op_name) + ": argument " + std::to_string(i) +
          " has a non-contiguous local tensor; collectives need dense buffers (call .contiguous() before "
          "from_local)");
    }
    impls.push_back(impl);
  }
  if (mesh_dim < 0 || mesh_dim >= mesh.ndim()) {
    throw PlacementError(
        std::string(op_name) + ": mesh_dim " + std::to_string(mesh_dim) +
        " is out of range for " + mesh.to_string());
  }
  return impls;
}

DeviceMesh inferred_mesh(
    const std::vector<at::Tensor>& tensors,
    const char* op_name) {
  auto mesh = find_mesh(tensors, op_name);
  if (!mesh) {
    throw MeshNotFoundError(explain_missing_mesh(tensors, op_name));
  }
  return std::move(*mesh);
}

[[noreturn]] void fail_placement(
    const char* op_name,
    size_t index,
    const DTensorImpl* impl,
    int64_t mesh_dim,
    const std::string& why) {
  throw PlacementError(
      std::string(op_name) + ": argument " + std::to_string(index) +
      " has placement " + to_string(impl->spec().placements[mesh_dim]) +
      " on mesh dim " + std::to_string(mesh_dim) + ": " + why);
}

} // namespace

std::optional<DeviceMesh> find_mesh(
    const std::vector<at::Tensor>& args,
    std::string_view op_name) {
  std::optional<DeviceMesh> mesh;
  size_t mesh_arg = 0;
  for (size_t i = 0; i < args.size(); ++i) {
    auto* impl = get_dtensor_impl(args[i]);
    if (impl == nullptr) {
      continue;
    }
    if (!mesh) {
      mesh = impl->spec().mesh;
      mesh_arg = i;
    } else if (!(impl->spec().mesh == *mesh)) {
      throw MeshMismatchError(
          std::string(op_name) +
          ": DTensor arguments live on different meshes: argument " +
          std::to_string(mesh_arg) + " is on " + mesh->to_string() +
          " but argument " + std::to_string(i) + " is on " +
          impl->spec().mesh.to_string() +
          "; redistribute them onto one mesh first");
    }
  }
  return mesh;
}

std::string explain_missing_mesh(
    const std::vector<at::Tensor>& args,
    std::string_view op_name) {
  std::ostringstream os;
  os << "found no DeviceMesh from dtensor args for " << op_name << "!\n";
  if (args.empty()) {
    os << "  (the collective got no tensor arguments)\n";
  }
  bool from_local = false;
  for (size_t i = 0; i < args.size(); ++i) {
    os << "  argument " << i << ": " << detail::describe_arg(args[i]) << "\n";
    from_local =
        from_local || provenance_of(args[i]).rfind("to_local()", 0) == 0;
  }
  os << "No argument is a DTensor, so there is no mesh to run the collective on. Fix: make one argument a "
        "DTensor (meshguard::distribute_tensor / from_local)";
  if (from_local) {
    os << ", pass the DTensor itself instead of its to_local() result";
  }
  os << ", or name the mesh with meshguard::guarded::"
     << (op_name == kBroadcast       ? "broadcast_"
             : op_name == kAllReduce ? "all_reduce_"
             : op_name == kAllGather ? "all_gather"
                                     : "reduce_scatter")
     << "(tensors, mesh, ...), which promotes plain tensors to Replicate DTensors.";
  return os.str();
}

namespace detail {

void broadcast_on(
    const DeviceMesh& mesh,
    const std::vector<at::Tensor>& tensors,
    int64_t src,
    int64_t mesh_dim) {
  auto impls = require_dtensors(tensors, mesh, kBroadcast, mesh_dim);
  if (src < 0 || src >= mesh.size(mesh_dim)) {
    throw PlacementError(
        std::string(kBroadcast) + ": src " + std::to_string(src) +
        " is not a rank of mesh dim " + std::to_string(mesh_dim) + " (size " +
        std::to_string(mesh.size(mesh_dim)) + ")");
  }
  for (size_t i = 0; i < impls.size(); ++i) {
    if (!is_replicate(impls[i]->spec().placements[mesh_dim])) {
      fail_placement(
          kBroadcast,
          i,
          impls[i],
          mesh_dim,
          "a broadcast would overwrite the other ranks' part of the value; redistribute to Replicate first");
    }
  }
  if (mesh.size(mesh_dim) == 1) {
    return;
  }
  for (auto* impl : impls) {
    std::vector<at::Tensor> buf{impl->local()};
    compat::broadcast(mesh.get_group(mesh_dim), buf, src, mesh.timeout());
  }
}

void all_reduce_on(
    const DeviceMesh& mesh,
    const std::vector<at::Tensor>& tensors,
    ReduceOp op,
    int64_t mesh_dim) {
  auto impls = require_dtensors(tensors, mesh, kAllReduce, mesh_dim);
  for (size_t i = 0; i < impls.size(); ++i) {
    const auto& p = impls[i]->spec().placements[mesh_dim];
    if (is_shard(p)) {
      fail_placement(
          kAllReduce,
          i,
          impls[i],
          mesh_dim,
          "reducing different shards elementwise has no meaning; use all_gather or redistribute");
    }
    if (auto* q = std::get_if<Partial>(&p)) {
      if (q->reduce_op != op) {
        fail_placement(
            kAllReduce,
            i,
            impls[i],
            mesh_dim,
            std::string("reducing it with ") + to_string(op) +
                " would not give its value");
      }
    }
    if (op == ReduceOp::AVG &&
        !at::isFloatingType(impls[i]->local().scalar_type())) {
      throw PlacementError(
          std::string(kAllReduce) + ": argument " + std::to_string(i) +
          ": avg needs a floating-point tensor, got " +
          std::string(c10::toString(impls[i]->local().scalar_type())));
    }
  }
  for (auto* impl : impls) {
    if (mesh.size(mesh_dim) > 1) {
      std::vector<at::Tensor> buf{impl->local()};
      compat::all_reduce(mesh.get_group(mesh_dim), buf, op, mesh.timeout());
    }
    DTensorSpec spec = impl->spec();
    spec.placements[mesh_dim] = Replicate{};
    impl->set_local_and_spec(impl->local(), std::move(spec));
  }
}

std::vector<at::Tensor> all_gather_on(
    const DeviceMesh& mesh,
    const std::vector<at::Tensor>& tensors,
    int64_t mesh_dim) {
  auto impls = require_dtensors(tensors, mesh, kAllGather, mesh_dim);
  std::vector<at::Tensor> out;
  for (size_t i = 0; i < impls.size(); ++i) {
    const auto& p = impls[i]->spec().placements[mesh_dim];
    if (is_partial(p)) {
      fail_placement(
          kAllGather,
          i,
          impls[i],
          mesh_dim,
          "gather partial values with all_reduce_ instead");
    }
    if (is_replicate(p)) {
      out.push_back(tensors[i]);
      continue;
    }
    Placements target = impls[i]->spec().placements;
    target[mesh_dim] = Replicate{};
    out.push_back(redistribute(tensors[i], target));
  }
  return out;
}

std::vector<at::Tensor> reduce_scatter_on(
    const DeviceMesh& mesh,
    const std::vector<at::Tensor>& tensors,
    ReduceOp op,
    int64_t scatter_dim,
    int64_t mesh_dim) {
  auto impls = require_dtensors(tensors, mesh, kReduceScatter, mesh_dim);
  std::vector<at::Tensor> out;
  for (size_t i = 0; i < impls.size(); ++i) {
    const auto& p = impls[i]->spec().placements[mesh_dim];
    auto* q = std::get_if<Partial>(&p);
    if (q == nullptr) {
      fail_placement(
          kReduceScatter,
          i,
          impls[i],
          mesh_dim,
          "reduce_scatter needs a Partial tensor");
    }
    if (q->reduce_op != op) {
      fail_placement(
          kReduceScatter,
          i,
          impls[i],
          mesh_dim,
          std::string("reducing it with ") + to_string(op) +
              " would not give its value");
    }
    if (scatter_dim < 0 || scatter_dim >= tensors[i].dim()) {
      throw PlacementError(
          std::string(kReduceScatter) + ": scatter_dim " +
          std::to_string(scatter_dim) + " is out of range for a " +
          std::to_string(tensors[i].dim()) + "-d tensor");
    }
    Placements target = impls[i]->spec().placements;
    target[mesh_dim] = Shard{scatter_dim};
    out.push_back(redistribute(tensors[i], target));
  }
  return out;
}

} // namespace detail

namespace dist {

void broadcast_(
    const std::vector<at::Tensor>& tensors,
    int64_t src,
    int64_t mesh_dim,
    CallSite where) {
  detail::UserCall call("dist::broadcast_", where, [&] {
    return detail::describe_operands(tensors);
  });
  detail::broadcast_on(
      inferred_mesh(tensors, kBroadcast), tensors, src, mesh_dim);
}

void all_reduce_(
    const std::vector<at::Tensor>& tensors,
    ReduceOp op,
    int64_t mesh_dim,
    CallSite where) {
  detail::UserCall call("dist::all_reduce_", where, [&] {
    return detail::describe_operands(tensors);
  });
  detail::all_reduce_on(
      inferred_mesh(tensors, kAllReduce), tensors, op, mesh_dim);
}

std::vector<at::Tensor> all_gather(
    const std::vector<at::Tensor>& tensors,
    int64_t mesh_dim,
    CallSite where) {
  detail::UserCall call("dist::all_gather", where, [&] {
    return detail::describe_operands(tensors);
  });
  return detail::all_gather_on(
      inferred_mesh(tensors, kAllGather), tensors, mesh_dim);
}

std::vector<at::Tensor> reduce_scatter(
    const std::vector<at::Tensor>& tensors,
    ReduceOp op,
    int64_t scatter_dim,
    int64_t mesh_dim,
    CallSite where) {
  detail::UserCall call("dist::reduce_scatter", where, [&] {
    return detail::describe_operands(tensors);
  });
  return detail::reduce_scatter_on(
      inferred_mesh(tensors, kReduceScatter),
      tensors,
      op,
      scatter_dim,
      mesh_dim);
}

} // namespace dist
} // namespace meshguard
