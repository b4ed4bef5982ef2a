//===--- BuiltinApiModel.cpp - The default API table ----------------------===//
//
// The meshguard runtime (include/meshguard/meshguard.h), libtorch's tensor
// factories and c10d's process-group collectives, as data. Keep this file a
// table: behaviour belongs in the analysis, names belong here.
//
//===----------------------------------------------------------------------===//

#include "meshguard/Analysis/Api/ApiModel.h"
#include <iterator>

namespace meshguard {
namespace analysis {

namespace {

const char *const DTensorMakers[] = {
    "meshguard::distribute_tensor",
    "meshguard::from_local",
    "meshguard::redistribute",
    // The DTensor factories (include/meshguard/runtime/Factories.h).
    "meshguard::ones",
    "meshguard::zeros",
    "meshguard::empty",
    "meshguard::full",
    "meshguard::rand",
    "meshguard::randn",
    // The CollectiveGuard returns DTensors (plain inputs are promoted).
    "meshguard::CollectiveGuard::sanitize_args",
};

const char *const PlainMakers[] = {
    "meshguard::to_local", "meshguard::full_tensor",
    // libtorch factories. Unlisted factories in an op namespace (at::, torch::)
    // are plain too: an op without tensor operands makes a plain tensor.
    "torch::randn", "torch::rand", "torch::randint", "torch::randperm",
    "torch::zeros", "torch::ones", "torch::empty", "torch::full",
    "torch::arange", "torch::linspace", "torch::eye", "torch::tensor",
    "torch::from_blob", "at::randn", "at::rand", "at::randint", "at::randperm",
    "at::zeros", "at::ones", "at::empty", "at::full", "at::arange",
    "at::linspace", "at::eye", "at::tensor", "at::from_blob",
    // Not the `*_like` factories: they are ops (a DTensor in, a DTensor out).
};

struct CollectiveRow {
  const char *Name;
  unsigned TensorArg;
  const char *OpName;
  const char *Guarded;
};

const CollectiveRow MeshCollectiveRows[] = {
    {"meshguard::dist::broadcast_", 0, "c10d.broadcast_.default",
     "meshguard::guarded::broadcast_"},
    {"meshguard::dist::all_reduce_", 0, "c10d.allreduce_.default",
     "meshguard::guarded::all_reduce_"},
    {"meshguard::dist::all_gather", 0, "c10d.allgather_.default",
     "meshguard::guarded::all_gather"},
    {"meshguard::dist::reduce_scatter", 0, "c10d.reduce_scatter_.default",
     "meshguard::guarded::reduce_scatter"},
};

struct PGRow {
  const char *Name;
  std::vector<unsigned> TensorArgs;
  const char *OpName;
};

// The raw c10d collectives user code calls, as libtorch 1.13 and 2.x declare
// them: ProcessGroup's methods (2.x routes them to the dispatcher ops named
// here), the same methods of c10d::Backend (2.x's ProcessGroupGloo and
// ProcessGroupNCCL are Backends; 1.13's are ProcessGroups), and 1.13's
// c10d::ops free functions. An override (ProcessGroupGloo::broadcast) matches
// the entry of the method it overrides. Tensor arguments are the inputs and
// the outputs (a DTensor output is as wrong as an input).
const PGRow ProcessGroupRows[] = {
    // c10d::ProcessGroup (1.13 and 2.x).
    {"c10d::ProcessGroup::broadcast", {0}, "c10d.broadcast_.default"},
    {"c10d::ProcessGroup::allreduce", {0}, "c10d.allreduce_.default"},
    {"c10d::ProcessGroup::allreduce_coalesced",
     {0},
     "c10d.allreduce_coalesced_.default"},
    {"c10d::ProcessGroup::reduce", {0}, "c10d.reduce_.default"},
    {"c10d::ProcessGroup::allgather", {0, 1}, "c10d.allgather_.default"},
    {"c10d::ProcessGroup::_allgather_base",
     {0, 1},
     "c10d._allgather_base_.default"},
    {"c10d::ProcessGroup::allgather_coalesced",
     {0, 1},
     "c10d.allgather_coalesced_.default"},
    {"c10d::ProcessGroup::gather", {0, 1}, "c10d.gather_.default"},
    {"c10d::ProcessGroup::scatter", {0, 1}, "c10d.scatter_.default"},
    {"c10d::ProcessGroup::reduce_scatter",
     {0, 1},
     "c10d.reduce_scatter_.default"},
    {"c10d::ProcessGroup::_reduce_scatter_base",
     {0, 1},
     "c10d._reduce_scatter_base_.default"},
    {"c10d::ProcessGroup::alltoall_base",
     {0, 1},
     "c10d.alltoall_base_.default"},
    {"c10d::ProcessGroup::alltoall", {0, 1}, "c10d.alltoall_.default"},
    {"c10d::ProcessGroup::send", {0}, "c10d.send.default"},
    {"c10d::ProcessGroup::recv", {0}, "c10d.recv_.default"},
    {"c10d::ProcessGroup::recvAnysource", {0}, "c10d.recv_any_source_.default"},
    // c10d::ProcessGroup, 2.x only: the coalesced tensor forms and the
    // torchcomms names that 2.13 prefers to the deprecated `_*_base` ones.
    {"c10d::ProcessGroup::allgather_into_tensor_coalesced",
     {0, 1},
     "c10d.allgather_into_tensor_coalesced_.default"},
    {"c10d::ProcessGroup::reduce_scatter_tensor_coalesced",
     {0, 1},
     "c10d.reduce_scatter_tensor_coalesced_.default"},
    {"c10d::ProcessGroup::all_gather_single",
     {0, 1},
     "c10d._allgather_base_.default"},
    {"c10d::ProcessGroup::all_gather_single_coalesced",
     {0, 1},
     "c10d.allgather_into_tensor_coalesced_.default"},
    {"c10d::ProcessGroup::reduce_scatter_single",
     {0, 1},
     "c10d._reduce_scatter_base_.default"},
    {"c10d::ProcessGroup::reduce_scatter_single_coalesced",
     {0, 1},
     "c10d.reduce_scatter_tensor_coalesced_.default"},
    {"c10d::ProcessGroup::all_to_all_single",
     {0, 1},
     "c10d.alltoall_base_.default"},
    // c10d::Backend (1.13 and 2.x; allreduce_sparse and the coalesced tensor
    // forms 2.x only), and through it ProcessGroupGloo, ProcessGroupNCCL, ...
    {"c10d::Backend::broadcast", {0}, "c10d.broadcast_.default"},
    {"c10d::Backend::allreduce", {0}, "c10d.allreduce_.default"},
    {"c10d::Backend::allreduce_sparse", {0}, "c10d.allreduce_.default"},
    {"c10d::Backend::allreduce_coalesced",
     {0},
     "c10d.allreduce_coalesced_.default"},
    {"c10d::Backend::reduce", {0}, "c10d.reduce_.default"},
    {"c10d::Backend::allgather", {0, 1}, "c10d.allgather_.default"},
    {"c10d::Backend::_allgather_base", {0, 1}, "c10d._allgather_base_.default"},
    {"c10d::Backend::allgather_coalesced",
     {0, 1},
     "c10d.allgather_coalesced_.default"},
    {"c10d::Backend::allgather_into_tensor_coalesced",
     {0, 1},
     "c10d.allgather_into_tensor_coalesced_.default"},
    {"c10d::Backend::gather", {0, 1}, "c10d.gather_.default"},
    {"c10d::Backend::scatter", {0, 1}, "c10d.scatter_.default"},
    {"c10d::Backend::reduce_scatter", {0, 1}, "c10d.reduce_scatter_.default"},
    {"c10d::Backend::_reduce_scatter_base",
     {0, 1},
     "c10d._reduce_scatter_base_.default"},
    {"c10d::Backend::reduce_scatter_tensor_coalesced",
     {0, 1},
     "c10d.reduce_scatter_tensor_coalesced_.default"},
    {"c10d::Backend::alltoall_base", {0, 1}, "c10d.alltoall_base_.default"},
    {"c10d::Backend::alltoall", {0, 1}, "c10d.alltoall_.default"},
    {"c10d::Backend::send", {0}, "c10d.send.default"},
    {"c10d::Backend::recv", {0}, "c10d.recv_.default"},
    {"c10d::Backend::recvAnysource", {0}, "c10d.recv_any_source_.default"},
    // c10d::ops (1.13's Ops.hpp; 2.x has no such header): the process group
    // first.
    {"c10d::ops::broadcast", {1}, "c10d.broadcast_.default"},
    {"c10d::ops::allreduce", {1}, "c10d.allreduce_.default"},
    {"c10d::ops::reduce", {1}, "c10d.reduce_.default"},
    {"c10d::ops::allgather", {1, 2}, "c10d.allgather_.default"},
    {"c10d::ops::gather", {1, 2}, "c10d.gather_.default"},
    {"c10d::ops::scatter", {1, 2}, "c10d.scatter_.default"},
    {"c10d::ops::reduce_scatter", {1, 2}, "c10d.reduce_scatter_.default"},
    {"c10d::ops::alltoall", {1, 2}, "c10d.alltoall_.default"},
    {"c10d::ops::send", {1}, "c10d.send.default"},
    {"c10d::ops::recv", {1}, "c10d.recv_.default"},
};

// Calls that communicate without being named as collectives: every rank of
// the mesh must reach them (dtensor-rank-divergent-collective).
const ImplicitCollectiveEntry ImplicitCollectiveRows[] = {
    {"meshguard::full_tensor"},
    {"meshguard::redistribute"},
    {"meshguard::distribute_tensor"},
    {"meshguard::from_local", /*run_check*/ 3},
    {"meshguard::distribute_module"},
    {"meshguard::check_replicas"},
    {"meshguard::CollectiveGuard::broadcast_"},
    // Random DTensor factories broadcast their seed from rank 0.
    {"meshguard::rand"},
    {"meshguard::randn"},
    // Tensor-parallel styles and FSDP-style sharding: they broadcast, gather
    // and redistribute parameters, inputs and outputs.
    {"meshguard::parallelize_module"},
    {"meshguard::parallel_input"},
    {"meshguard::parallel_output"},
    {"meshguard::parallel_forward"},
    {"meshguard::fully_shard"},
    {"meshguard::fully_sharded_forward"},
    // c10d's barriers take no tensor: every rank of the group must enter
    // them (a barrier on rank 0 only is the textbook hang).
    {"c10d::ProcessGroup::barrier"},
    {"c10d::ProcessGroup::monitoredBarrier"},
    {"c10d::Backend::barrier"},
    {"c10d::Backend::monitoredBarrier"},
    {"c10d::ops::barrier"},
    {"c10d::ops::monitored_barrier_"},
};

const char *const RankSourceNames[] = {
    "meshguard::DeviceMesh::get_rank",
    "meshguard::DeviceMesh::get_local_rank",
    "meshguard::DeviceMesh::coordinate",
    "c10d::ProcessGroup::getRank",
    "c10d::Backend::getRank",
};

// What torchrun sets per process.
const char *const RankEnvironmentNames[] = {"RANK", "LOCAL_RANK", "GROUP_RANK"};

const char *const UniformOpNames[] = {
    "c10d.broadcast_.default",
    "c10d.allreduce_.default",
    "c10d.allreduce_coalesced_.default",
    "c10d.allgather_.default",
    "c10d._allgather_base_.default",
    "c10d.allgather_coalesced_.default",
    "c10d.allgather_into_tensor_coalesced_.default",
    "meshguard::full_tensor",
};

const PlacementCallEntry PlacementCallRows[] = {
    // Function, role, placements (or shape) argument, run_check, mesh.
    {"meshguard::distribute_tensor", PlacementRole::SetsPlacements, 2, -1, 1},
    {"meshguard::from_local", PlacementRole::SetsPlacements, 2, 3, 1},
    {"meshguard::redistribute", PlacementRole::SetsPlacements, 1},
    {"meshguard::to_local", PlacementRole::LocalTensor},
    {"meshguard::full_tensor", PlacementRole::FullTensor},
    {"meshguard::init_device_mesh", PlacementRole::MakesMesh, 1},
    // The DTensor factories: each rank makes its shard of a global tensor.
    {"meshguard::ones", PlacementRole::SetsPlacements, 2, -1, 1},
    {"meshguard::zeros", PlacementRole::SetsPlacements, 2, -1, 1},
    {"meshguard::empty", PlacementRole::SetsPlacements, 2, -1, 1},
    {"meshguard::rand", PlacementRole::SetsPlacements, 2, -1, 1},
    {"meshguard::randn", PlacementRole::SetsPlacements, 2, -1, 1},
    {"meshguard::full", PlacementRole::SetsPlacements, 3, -1, 2},
    // Modules whose parameters become DTensors (argument 0: the module).
    {"meshguard::fully_shard", PlacementRole::ShardsModule, -1, -1, 1},
    {"meshguard::parallelize_module", PlacementRole::ParallelizesModule, 2, -1,
     1},
};

} // namespace

ApiModel ApiModel::builtin() {
  ApiModel M;
  M.TensorTypes = {"at::Tensor"};
  M.TensorContainers = {"std::vector", "c10::ArrayRef"};
  M.MeshTypes = {"meshguard::DeviceMesh"};
  M.MeshOfFunction = "meshguard::mesh_of";
  M.OpNamespaces = {"at", "torch"};
  for (const char *Name : DTensorMakers)
    M.Sources.push_back({Name, SourceKind::DTensor});
  for (const char *Name : PlainMakers)
    M.Sources.push_back({Name, SourceKind::Plain});
  for (const CollectiveRow &Row : MeshCollectiveRows)
    M.MeshCollectives.push_back(
        {Row.Name, Row.TensorArg, Row.OpName, Row.Guarded});
  for (const PGRow &Row : ProcessGroupRows)
    M.ProcessGroupCollectives.push_back({Row.Name, Row.TensorArgs, Row.OpName});
  M.ImplicitCollectives.assign(std::begin(ImplicitCollectiveRows),
                               std::end(ImplicitCollectiveRows));
  M.RankSources.assign(std::begin(RankSourceNames), std::end(RankSourceNames));
  M.RankEnvironment.assign(std::begin(RankEnvironmentNames),
                           std::end(RankEnvironmentNames));
  M.UniformOps.assign(std::begin(UniformOpNames), std::end(UniformOpNames));
  M.PlacementCalls.assign(std::begin(PlacementCallRows),
                          std::end(PlacementCallRows));
  return M;
}

} // namespace analysis
} // namespace meshguard
