//===--- DiagnosticMessages.h - Every dtensor-* diagnostic's text -*- C++
//-*-===//
//
// The wording of every warning, note and remark of the dtensor-* checks, in
// one place: checks that say the same thing say it the same way, and a
// change of wording is one edit (the lit tests match these texts).
//
//===----------------------------------------------------------------------===//

#ifndef MESHGUARD_TIDY_DIAGNOSTICMESSAGES_H
#define MESHGUARD_TIDY_DIAGNOSTICMESSAGES_H

#include "llvm/ADT/StringRef.h"

namespace meshguard {
namespace tidy {
namespace msg {

inline constexpr llvm::StringLiteral MaybeNoMesh =
    "collective '%0' may have no DeviceMesh: on some path every "
    "tensor argument is a plain at::Tensor";
inline constexpr llvm::StringLiteral MaybePlainOperand =
    "'%0' may be a plain tensor here";
inline constexpr llvm::StringLiteral NoMesh =
    "collective '%0' has no DeviceMesh: every tensor argument is a "
    "plain at::Tensor, so the runtime will throw 'found no "
    "DeviceMesh from dtensor args for %0'";
inline constexpr llvm::StringLiteral MakeOneDTensor =
    "make one tensor argument a DTensor "
    "(meshguard::distribute_tensor, meshguard::from_local)%select{|; "
    "the mesh-explicit form '%1' that the API model names is not "
    "declared in this translation unit}0";
inline constexpr llvm::StringLiteral NoMeshInScope =
    "no meshguard::DeviceMesh is in scope: pass one explicitly with "
    "'%0(tensors, mesh, ...)', or make one tensor argument a DTensor "
    "(meshguard::distribute_tensor, meshguard::from_local)";
inline constexpr llvm::StringLiteral CallReachesNoMesh =
    "call to %0 reaches collective '%1' with no DeviceMesh: argument "
    "'%2' is a plain at::Tensor, so the runtime will throw 'found no "
    "DeviceMesh from dtensor args for %1'";
inline constexpr llvm::StringLiteral CallMayReachNoMesh =
    "call to %0 may reach collective '%1' with no DeviceMesh: "
    "argument '%2' is a plain at::Tensor on some path";
inline constexpr llvm::StringLiteral CollectiveInCallee =
    "the collective is called here; its tensor arguments come only "
    "from that %select{parameter|captured variable}0";
inline constexpr llvm::StringLiteral CallReachesUndistributedModule =
    "call to %0 reaches collective '%1' with no DeviceMesh: module "
    "'%2' %select{was never|may not have been}3 passed to "
    "meshguard::distribute_module, so its parameters are plain "
    "tensors and the runtime will throw 'found no DeviceMesh from "
    "dtensor args for %1'";
inline constexpr llvm::StringLiteral ModuleCreatedHere =
    "'%0' is created here; distribute it with "
    "'meshguard::distribute_module(%1, mesh)' before training";
inline constexpr llvm::StringLiteral CollectiveOnModuleParameters =
    "the collective is called here on tensors of the module's "
    "parameters()";
inline constexpr llvm::StringLiteral MixedOp =
    "tensor op mixes the DTensor '%0' with the plain tensor '%1': "
    "the runtime throws 'mixed torch.Tensor and DTensor'";
inline constexpr llvm::StringLiteral DTensorComesFrom =
    "'%0' is a DTensor: it comes from %1 here";
inline constexpr llvm::StringLiteral PlainComesFrom =
    "'%0' is a plain tensor: it comes from %1 here";
inline constexpr llvm::StringLiteral InPlacePlainSelf =
    "'%0' is modified in place, so it cannot be wrapped (that would "
    "update a temporary): make it a DTensor where it is made";
inline constexpr llvm::StringLiteral WrapPlainAsReplicate =
    "wrap the plain tensor as a Replicate DTensor: "
    "meshguard::from_local(t, mesh, {meshguard::Replicate{}})";
inline constexpr llvm::StringLiteral DTensorToProcessGroup =
    "raw process-group collective '%0' is given a DTensor ('%1'): "
    "c10d collectives work on local tensors; pass "
    "meshguard::to_local(...) of it";
inline constexpr llvm::StringLiteral MaybeDTensorToProcessGroup =
    "raw process-group collective '%0' may be given a DTensor ('%1') "
    "on some path: c10d collectives work on local tensors";
inline constexpr llvm::StringLiteral HoldsDTensor =
    "'%0' %select{may hold|holds}1 a DTensor here";
inline constexpr llvm::StringLiteral SharedElementFix =
    "the fix-it of this collective wraps the DTensors given to both "
    "in meshguard::to_local(...)";
inline constexpr llvm::StringLiteral DTensorInMacro =
    "'%0' is a DTensor but cannot be rewritten here (macro): wrap it "
    "in meshguard::to_local(...) by hand";
inline constexpr llvm::StringLiteral MaybeDTensorNoFix =
    "'%0' may be a DTensor on some path: no fix-it for it; call "
    "meshguard::to_local(...) on it where it is one";
inline constexpr llvm::StringLiteral UseMeshAwareCollective =
    "to keep the tensors distributed, call the mesh-aware collective "
    "'%0' instead";
inline constexpr llvm::StringLiteral ModuleNeverDistributed =
    "'%0' holds only plain tensors: module '%1' is created here and "
    "never passed to meshguard::distribute_module";
inline constexpr llvm::StringLiteral HoldsOnlyPlain =
    "'%0' holds only plain tensors here";
inline constexpr llvm::StringLiteral PlainOnEveryPath =
    "'%0' is a plain tensor on every path here";
inline constexpr llvm::StringLiteral Configuration =
    "meshguard configuration: %0";
inline constexpr llvm::StringLiteral NotChecked =
    "%0 was not checked for %1: %2";
inline constexpr llvm::StringLiteral CallGivesProcessGroupDTensor =
    "call to %0 gives raw process-group collective '%1' a DTensor "
    "('%2'): c10d collectives work on local tensors";
inline constexpr llvm::StringLiteral CallMayGiveProcessGroupDTensor =
    "call to %0 may give raw process-group collective '%1' a DTensor "
    "('%2') on some path: c10d collectives work on local tensors";
inline constexpr llvm::StringLiteral ProcessGroupCollectiveInCallee =
    "the collective is called here; its tensors come from that "
    "%select{parameter|captured variable}0";
inline constexpr llvm::StringLiteral ElementComesFrom =
    "'%0' holds only plain tensors: an element comes from %1 here";
inline constexpr llvm::StringLiteral CallMixesInCallee =
    "call to %0 makes a tensor op inside it mix %select{the plain tensor|"
    "the DTensor}2 '%1' with %select{a DTensor|a plain tensor}2: the "
    "runtime throws 'mixed torch.Tensor and DTensor'";
inline constexpr llvm::StringLiteral MixedOpInCallee =
    "the tensor op is here; its other operand is %select{a DTensor|a plain "
    "tensor}0";

// dtensor-rank-divergent-collective. %0 of the first four: "collective 'x'"
// or "'helper', which performs the collective 'x',".
inline constexpr llvm::StringLiteral RankOnlyWhereConditionHolds =
    "%0 runs only on the ranks where a rank-dependent condition holds: the "
    "other ranks never call it and the job hangs";
inline constexpr llvm::StringLiteral RankDifferentSequences =
    "the sides of a rank-dependent branch run different collectives (%0; "
    "other side: %1): ranks on different sides mismatch and the job hangs";
inline constexpr llvm::StringLiteral RankLoopTripCount =
    "%0 runs in a loop whose trip count differs per rank: the ranks call it "
    "a different number of times and the job hangs";
inline constexpr llvm::StringLiteral RankAfterEarlyExit =
    "%0 is skipped by the ranks that leave early through a rank-dependent "
    "'%1': the other ranks wait for them and the job hangs";
inline constexpr llvm::StringLiteral RankDependentArgument =
    "'%0' runs the collective '%1' only when its parameter '%2' says so, and "
    "this call passes a value that differs per rank: the other ranks never "
    "call it and the job hangs";
inline constexpr llvm::StringLiteral RankArgumentNote =
    "this argument depends on the rank";
inline constexpr llvm::StringLiteral RankLoopConditionNote =
    "the loop condition depends on the rank";
inline constexpr llvm::StringLiteral RankConditionNote =
    "this condition depends on the rank";
inline constexpr llvm::StringLiteral RankOriginNote =
    "the rank-dependent value comes from %0 here";
inline constexpr llvm::StringLiteral RankExitNote = "some ranks leave here";
inline constexpr llvm::StringLiteral RankParameterDecidesNote =
    "inside '%0', this decides whether the collective runs";
inline constexpr llvm::StringLiteral RankHelperPerformsNote =
    "'%0' performs the collective '%1' here";

// dtensor-partial-local-use. %0: FullUseKind; %1: the op or helper.
inline constexpr llvm::StringLiteral PartialLocalUsed =
    "%select{'item()' reads|'%1' is applied to|this prints|this saves|'%1' "
    "uses}0 one rank's share of a DTensor that may be Partial, as if it were "
    "the whole value: each rank gets its own wrong number, with no error";
inline constexpr llvm::StringLiteral PartialLocalUsedInHelper =
    "inside '%0', the parameter is used as a full value here";
// The same inside a helper of another file (CalleeNotes names it).
inline constexpr llvm::StringLiteral PartialLocalUsedInCallee =
    "the parameter is used as a full value here";
inline constexpr llvm::StringLiteral PartialLocalTakenHere =
    "'to_local()' gives each rank only its own partial contribution; "
    "full_tensor() gives the reduced value";
inline constexpr llvm::StringLiteral PartialOriginNote =
    "the DTensor may become Partial here";
// The share is one rank's shard reduced by hand (to_local of a Shard).
inline constexpr llvm::StringLiteral ShardLocalTakenHere =
    "'to_local()' gives each rank only its own shard; full_tensor() gives the "
    "whole tensor";
inline constexpr llvm::StringLiteral ShardReducedNote =
    "this reduces only this rank's shard over its sharded dim: the result is "
    "one rank's part of the whole";

// dtensor-op-without-sharding-rule. %0: "aten::dot"; %1: may be Partial.
inline constexpr llvm::StringLiteral OpWithoutShardingRule =
    "'%0' has no sharding rule in meshguard's runtime, and this call gives it "
    "a DTensor that may be %select{sharded|sharded or Partial}1: the runtime "
    "throws 'no sharding rule for DTensor operands' when the job gets here; "
    "redistribute the operand to Replicate first";
inline constexpr llvm::StringLiteral OpOperandPlacedNote =
    "the DTensor gets its sharded placements here";

// dtensor-unverified-replicate.
inline constexpr llvm::StringLiteral UnverifiedReplicate =
    "'from_local()' calls this rank's tensor a replica (every placement "
    "Replicate) without run_check, but the tensor differs per rank: every "
    "rank takes its own tensor for the value, and what is computed from it "
    "is wrong with no error; give the placement it has (Shard), or pass "
    "run_check=true to have the runtime verify it";
// %0: the helper.
inline constexpr llvm::StringLiteral UnverifiedReplicateThroughHelper =
    "call to '%0' makes this rank's tensor a replica inside it (from_local() "
    "with every placement Replicate, without run_check), but the argument "
    "differs per rank: every rank takes its own tensor for the value, and "
    "what is computed from it is wrong with no error";
// Inside a helper of this file (%0), or of another (CalleeNotes names it).
inline constexpr llvm::StringLiteral UnverifiedReplicateInHelperNote =
    "inside '%0', the tensor is called a replica here, without run_check";
inline constexpr llvm::StringLiteral UnverifiedReplicateInCalleeNote =
    "the tensor is called a replica here, without run_check";
inline constexpr llvm::StringLiteral UnverifiedReplicateArgumentNote =
    "this argument differs per rank";
// The local tensor is a shard's (or a Partial value's) to_local().
inline constexpr llvm::StringLiteral UnverifiedReplicateShardNote =
    "this is one rank's %select{shard|partial contribution}0 of a DTensor "
    "(to_local()), not the whole value";
inline constexpr llvm::StringLiteral UnverifiedReplicatePlacedNote =
    "the DTensor %select{gets its sharded placements|may become Partial}0 "
    "here";
// The local tensor is drawn from a generator that differs per rank.
inline constexpr llvm::StringLiteral UnverifiedReplicateSeededNote =
    "%select{the default generator is seeded here with a value that differs "
    "per rank|it is drawn from this generator, which differs per rank}0";
inline constexpr llvm::StringLiteral UnverifiedReplicateLocalNote =
    "this local tensor differs per rank";
// A plain input of a module whose style reads it as a replica. %0: the call.
inline constexpr llvm::StringLiteral UnverifiedReplicateStyleInput =
    "'%0' gives the module this rank's tensor, which its tensor-parallel "
    "style takes as a replica (input_layouts Replicate, wrapped without "
    "run_check), but the tensor differs per rank: every rank takes its own "
    "tensor for the value, and what is computed from it is wrong with no "
    "error; make the input the same on every rank (a broadcast), or give "
    "the style the layout the input has (input_layouts = Shard)";
inline constexpr llvm::StringLiteral UnverifiedReplicateStyleNote =
    "the module gets its style here; it reads a plain input as Replicate";

// dtensor-mixed-meshes. %0: an op, a list, a module's forward; %1: the op
// or function; %2, %4: the tensors (the module); %3, %5: their meshes.
inline constexpr llvm::StringLiteral MixedMeshes =
    "%select{tensor op '%1' combines|'%1' is given a list that holds|the "
    "module's forward combines}0 "
    "DTensors on different meshes: %2 on %3 and %4 on %5; the runtime throws "
    "'DTensor operands live on different meshes' when the job gets here";
inline constexpr llvm::StringLiteral MixedMeshesPlacedNote =
    "%0 is put on %1 here";

// dtensor-unsharded-checkpoint. %0: torch::save or OutputArchive::write;
// %1: the value; %2: whether it is a container.
inline constexpr llvm::StringLiteral SaveDTensor =
    "'%0' is given %select{the DTensor '%1'|'%1', which holds a DTensor}2: "
    "libtorch's serialization cannot write a DTensor (it has no storage of "
    "its own), so the runtime throws 'Cannot access storage of "
    "meshguard::DTensorImpl'; save it with meshguard::checkpoint::save, "
    "which writes every rank's shard and the layout";
inline constexpr llvm::StringLiteral SaveDistributedModule =
    "'%0' is given module '%1', whose parameters are DTensors: libtorch's "
    "serialization cannot write them, so the runtime throws 'Cannot access "
    "storage of meshguard::DTensorImpl'; save "
    "meshguard::checkpoint::module_state(...) with "
    "meshguard::checkpoint::save";
inline constexpr llvm::StringLiteral SaveLocalShard =
    "'%0' writes '%1', this rank's local shard of a DTensor, on every rank "
    "under the same name: the ranks overwrite each other's shard and nothing "
    "records the layout (mesh, placements, global shape); save the DTensor "
    "with meshguard::checkpoint::save";
// %0: the module or tensor; %1: a module.
inline constexpr llvm::StringLiteral LoadIntoDistributed =
    "'torch::load' into %select{the DTensor|module}1 '%0'%select{|, whose "
    "parameters are DTensors}1: libtorch's load sets each tensor to a plain "
    "one, so the runtime throws 'aten.set_.source_Tensor got mixed "
    "torch.Tensor and DTensor'; load before distributing, or load a "
    "meshguard::checkpoint::save checkpoint with "
    "meshguard::checkpoint::load%select{|(meshguard::checkpoint::module_state"
    "(...), dir)}1";
// %0: the helper; %1: a load; %2: the DTensor.
inline constexpr llvm::StringLiteral CallCheckpointsDTensor =
    "call to %0 %select{saves|loads into}1 the DTensor '%2' with libtorch's "
    "serialization inside it: the runtime throws '%select{Cannot access "
    "storage of meshguard::DTensorImpl|aten.set_.source_Tensor got mixed "
    "torch.Tensor and DTensor}1'; %select{save|load}1 DTensors with "
    "meshguard::checkpoint::%select{save|load}1";
inline constexpr llvm::StringLiteral CheckpointInCallee =
    "the %select{save|load}0 is here; its tensor comes from that "
    "%select{parameter|captured variable}1";
inline constexpr llvm::StringLiteral ModuleDistributedHere =
    "'%0' is distributed here: its parameters are DTensors from here on";
inline constexpr llvm::StringLiteral LocalShardTakenHere =
    "'to_local()' gives each rank only its own shard of the DTensor '%0'";
inline constexpr llvm::StringLiteral CheckpointSaveIsCollective =
    "no fix-it: meshguard::checkpoint::save is collective (every rank of the "
    "mesh calls it), and whether this save runs depends on the rank";
inline constexpr llvm::StringLiteral CheckpointSaveInLambda =
    "no fix-it: meshguard::checkpoint::save is collective, and whether every "
    "rank runs this lambda is decided where it is called";
inline constexpr llvm::StringLiteral CheckpointPathPerRank =
    "no fix-it: the path differs per rank, and meshguard::checkpoint::save "
    "takes one directory that every rank writes into";
inline constexpr llvm::StringLiteral CheckpointNoMesh =
    "no fix-it: the mesh the module was distributed on cannot be named here; "
    "pass it as meshguard::checkpoint::save's third argument";

} // namespace msg
} // namespace tidy
} // namespace meshguard

#endif // MESHGUARD_TIDY_DIAGNOSTICMESSAGES_H
