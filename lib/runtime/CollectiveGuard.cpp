// CollectiveGuard and the guarded:: collectives that fix-its rewrite into.

#include <meshguard/runtime/CollectiveGuard.h>

#include <meshguard/runtime/Collectives.h>
#include <meshguard/runtime/DTensor.h>
#include <meshguard/runtime/DTensorImpl.h>
#include <meshguard/runtime/Errors.h>

#include "ConsistencyCheck.h"
#include "Internal.h"

namespace meshguard {

namespace {

constexpr const char* kGuard = "CollectiveGuard";

// What a plain argument means to each collective: a replica (broadcast,
// all_gather) or this rank's contribution (all_reduce_, reduce_scatter).
enum class Promotion { kReplicate, kReplicateUnchecked, kPartial };

} // namespace

CollectiveGuard::CollectiveGuard(DeviceMesh mesh, GuardPolicy policy)
    : mesh_(std::move(mesh)),
      policy_(policy) {}

std::optional<DeviceMesh> CollectiveGuard::require_mesh(
    const std::vector<at::Tensor>& args) const {
  auto found = find_mesh(args, kGuard);
  if (found && !(*found == mesh_)) {
    for (size_t i = 0; i < args.size(); ++i) {
      auto m = mesh_of(args[i]);
      if (m && !(*m == mesh_)) {
        throw MeshMismatchError(
            std::string(kGuard) + ": argument " + std::to_string(i) +
            " is a DTensor on " + m->to_string() + " but the guard's mesh is " +
            mesh_.to_string());
      }
    }
  }
  return found;
}

void CollectiveGuard::check_args(
    const std::vector<at::Tensor>& args,
    const char* op_name) const {
  require_mesh(args);
  if (policy_ != GuardPolicy::strict) {
    return;
  }
  for (size_t i = 0; i < args.size(); ++i) {
    if (!is_dtensor(args[i])) {
      throw NotDistributedError(
          std::string(op_name) + " (CollectiveGuard, strict): argument " +
          std::to_string(i) + " is " + detail::describe_arg(args[i]) +
          "; make it a DTensor on " + mesh_.to_string() +
          " (distribute_tensor / from_local) or use the promote policy");
    }
  }
}

namespace {

std::vector<at::Tensor> promote(
    const std::vector<at::Tensor>& args,
    const DeviceMesh& mesh,
    Promotion how,
    ReduceOp op,
    int64_t mesh_dim) {
  std::vector<at::Tensor> out;
  out.reserve(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    const at::Tensor& t = args[i];
    if (is_dtensor(t)) {
      out.push_back(t);
      continue;
    }
    if (!t.defined()) {
      throw PlacementError(
          std::string(kGuard) + ": argument " + std::to_string(i) +
          " is an undefined tensor");
    }
    Placements placements(mesh.ndim(), Replicate{});
    if (how == Promotion::kPartial) {
      placements[mesh_dim] = Partial{op};
    }
    if (how == Promotion::kReplicate && replica_check_enabled()) {
      check_replicas(
          t,
          mesh,
          "argument " + std::to_string(i) + " (" + detail::describe_arg(t) +
              ")");
    }
    out.push_back(from_local(t, mesh, placements));
  }
  return out;
}

void check_mesh_dim(const DeviceMesh& mesh, int64_t mesh_dim) {
  if (mesh_dim < 0 || mesh_dim >= mesh.ndim()) {
    throw PlacementError(
        "mesh_dim " + std::to_string(mesh_dim) + " is out of range for " +
        mesh.to_string());
  }
}

} // namespace

std::vector<at::Tensor> CollectiveGuard::sanitize_args(
    const std::vector<at::Tensor>& args) const {
  check_args(args, "sanitize_args");
  return promote(args, mesh_, Promotion::kReplicate, ReduceOp::SUM, 0);
}

void CollectiveGuard::broadcast_(
    const std::vector<at::Tensor>& tensors,
    int64_t src,
    int64_t mesh_dim,
    CallSite where) const {
  detail::UserCall call("guarded::broadcast_", where, [&] {
    return detail::describe_operands(tensors);
  });
  check_args(tensors, "c10d.broadcast_.default");
  check_mesh_dim(mesh_, mesh_dim);
  // The broadcast makes the replicas agree, so a replica check is moot.
  detail::broadcast_on(
      mesh_,
      promote(
          tensors,
          mesh_,
          Promotion::kReplicateUnchecked,
          ReduceOp::SUM,
          mesh_dim),
      src,
      mesh_dim);
}

void CollectiveGuard::all_reduce_(
    const std::vector<at::Tensor>& tensors,
    ReduceOp op,
    int64_t mesh_dim,
    CallSite where) const {
  detail::UserCall call("guarded::all_reduce_", where, [&] {
    return detail::describe_operands(tensors);
  });
  check_args(tensors, "c10d.allreduce_.default");
  check_mesh_dim(mesh_, mesh_dim);
  detail::all_reduce_on(
      mesh_,
      promote(tensors, mesh_, Promotion::kPartial, op, mesh_dim),
      op,
      mesh_dim);
}

std::vector<at::Tensor> CollectiveGuard::all_gather(
    const std::vector<at::Tensor>& tensors,
    int64_t mesh_dim,
    CallSite where) const {
  detail::UserCall call("guarded::all_gather", where, [&] {
    return detail::describe_operands(tensors);
  });
  check_args(tensors, "c10d.allgather_.default");
  check_mesh_dim(mesh_, mesh_dim);
  return detail::all_gather_on(
      mesh_,
      promote(tensors, mesh_, Promotion::kReplicate, ReduceOp::SUM, mesh_dim),
      mesh_dim);
}

std::vector<at::Tensor> CollectiveGuard::reduce_scatter(
    const std::vector<at::Tensor>& tensors,
    ReduceOp op,
    int64_t scatter_dim,
    int64_t mesh_dim,
    CallSite where) const {
  detail::UserCall call("guarded::reduce_scatter", where, [&] {
    return detail::describe_operands(tensors);
  });
  check_args(tensors, "c10d.reduce_scatter_.default");
  check_mesh_dim(mesh_, mesh_dim);
  return detail::reduce_scatter_on(
      mesh_,
      promote(tensors, mesh_, Promotion::kPartial, op, mesh_dim),
      op,
      scatter_dim,
      mesh_dim);
}

namespace guarded {

void broadcast_(
    const std::vector<at::Tensor>& tensors,
    const DeviceMesh& mesh,
    int64_t src,
    int64_t mesh_dim,
    CallSite where) {
  CollectiveGuard(mesh).broadcast_(tensors, src, mesh_dim, where);
}

void all_reduce_(
    const std::vector<at::Tensor>& tensors,
    const DeviceMesh& mesh,
    ReduceOp op,
    int64_t mesh_dim,
    CallSite where) {
  CollectiveGuard(mesh).all_reduce_(tensors, op, mesh_dim, where);
}

std::vector<at::Tensor> all_gather(
    const std::vector<at::Tensor>& tensors,
    const DeviceMesh& mesh,
    int64_t mesh_dim,
    CallSite where) {
  return CollectiveGuard(mesh).all_gather(tensors, mesh_dim, where);
}

std::vector<at::Tensor> reduce_scatter(
    const std::vector<at::Tensor>& tensors,
    const DeviceMesh& mesh,
    ReduceOp op,
    int64_t scatter_dim,
    int64_t mesh_dim,
    CallSite where) {
  return CollectiveGuard(mesh).reduce_scatter(
      tensors, op, scatter_dim, mesh_dim, where);
}

} // namespace guarded
} // namespace meshguard
