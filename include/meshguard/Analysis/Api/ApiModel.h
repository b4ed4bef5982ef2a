//===--- ApiModel.h - What the DTensor APIs do, as data ---------*- C++ -*-===//
//
// The API model is a plain data table: which functions make DTensors, which
// make plain tensors, which collectives infer their DeviceMesh from their
// tensor arguments (and what to call instead), which collectives are raw
// c10d process-group collectives. The built-in table describes the meshguard
// runtime, libtorch's factories and c10d; a user configuration file (YAML,
// see docs/) appends to it. Nothing in here knows about Clang's AST.
//
//===----------------------------------------------------------------------===//

#ifndef MESHGUARD_ANALYSIS_APIMODEL_H
#define MESHGUARD_ANALYSIS_APIMODEL_H

#include <string>
#include <vector>

namespace meshguard {
namespace analysis {

/// What a call does to the provenance of the tensor it returns.
enum class SourceKind {
  /// The result is a DTensor (it carries a DeviceMesh).
  DTensor,
  /// The result is a plain tensor (no DeviceMesh).
  Plain,
};

/// A function whose tensor result has a fixed provenance.
struct SourceEntry {
  /// Fully qualified name, e.g. "meshguard::to_local" or "torch::randn".
  std::string Function;
  SourceKind Kind;
  /// "file:line:col" of the entry in a user file; empty when built in.
  std::string Where = {};
};

/// A collective that finds its DeviceMesh by looking at its tensor arguments.
struct MeshCollectiveEntry {
  /// Fully qualified name, e.g. "meshguard::dist::broadcast_".
  std::string Function;
  /// Index of the parameter holding the tensors (a tensor, a tensor list or
  /// a std::vector of tensors).
  unsigned TensorArg = 0;
  /// The operator name the runtime error uses, e.g. "c10d.broadcast_.default".
  std::string OpName;
  /// The mesh-explicit replacement, e.g. "meshguard::guarded::broadcast_". It
  /// takes the same arguments with a DeviceMesh inserted after TensorArg.
  std::string Guarded;
  /// "file:line:col" of the entry in a user file; empty when built in.
  std::string Where = {};
};

/// A raw c10d process-group collective: it must be given local tensors.
struct ProcessGroupCollectiveEntry {
  /// Fully qualified name; methods as "c10d::ProcessGroup::broadcast".
  std::string Function;
  /// Indices of the parameters that hold tensors.
  std::vector<unsigned> TensorArgs;
  std::string OpName;
  /// "file:line:col" of the entry in a user file; empty when built in.
  std::string Where = {};
};

/// A call that communicates although it is not named as a collective
/// (full_tensor, redistribute, ...): every rank of the mesh must make it.
struct ImplicitCollectiveEntry {
  std::string Function;
  /// When set, the call communicates only if this argument is given and is
  /// not the constant false (from_local's run_check).
  int FlagArg = -1;
};

/// What a call does to the placements of a DTensor (the placement facts).
enum class PlacementRole {
  /// Gives its result the placements of argument PlacementsArg
  /// (distribute_tensor, from_local, redistribute).
  SetsPlacements,
  /// The local tensor of a DTensor (to_local).
  LocalTensor,
  /// The global value of a DTensor, as a plain tensor (full_tensor).
  FullTensor,
  /// Makes a DeviceMesh whose shape is argument PlacementsArg
  /// (init_device_mesh).
  MakesMesh,
  /// Makes every parameter of the module (argument 0, recursively) Shard(0)
  /// on the mesh (fully_shard; with a third argument, on that mesh dim).
  ShardsModule,
  /// Puts the parameters of the module (argument 0) on the mesh by the
  /// tensor-parallel style of argument PlacementsArg (parallelize_module).
  ParallelizesModule,
};

/// Whether a call of this role gives a DTensor placements the analysis can
/// read (from_local, a factory, fully_shard's parameters, ...).
inline bool placesTensors(PlacementRole R) {
  return R == PlacementRole::SetsPlacements ||
         R == PlacementRole::ShardsModule ||
         R == PlacementRole::ParallelizesModule;
}

struct PlacementCallEntry {
  std::string Function;
  PlacementRole Role;
  /// SetsPlacements: the placements; MakesMesh: the mesh's shape;
  /// ParallelizesModule: the style.
  int PlacementsArg = -1;
  /// SetsPlacements from this rank's local tensor: the argument that asks
  /// the call to verify that Replicate values agree (from_local's
  /// run_check), or -1.
  int VerifyArg = -1;
  /// SetsPlacements and the module roles: the DeviceMesh argument, or -1
  /// (redistribute keeps its operand's mesh).
  int MeshArg = -1;
};

/// The whole model. Every list extends the built-in defaults when a user file
/// is loaded; names are fully qualified without leading "::".
struct ApiModel {
  /// Types whose values carry provenance (the DTensor-or-plain question).
  std::vector<std::string> TensorTypes;
  /// Class templates that hold tensors: std::vector<T>, c10::ArrayRef<T>.
  std::vector<std::string> TensorContainers;
  /// Types of a DeviceMesh value usable in a fix-it.
  std::vector<std::string> MeshTypes;
  /// A function from a DTensor to something dereferenceable to its mesh.
  std::string MeshOfFunction;
  /// Namespaces whose free functions returning a tensor are tensor ops: the
  /// result is a DTensor if an operand is, plain if all operands are (and
  /// plain when there is no tensor operand at all: a factory).
  std::vector<std::string> OpNamespaces;
  std::vector<SourceEntry> Sources;
  std::vector<MeshCollectiveEntry> MeshCollectives;
  std::vector<ProcessGroupCollectiveEntry> ProcessGroupCollectives;
  /// Calls that communicate implicitly (dtensor-rank-divergent-collective).
  std::vector<ImplicitCollectiveEntry> ImplicitCollectives;
  /// Functions whose result differs per rank: rank and coordinate accessors.
  std::vector<std::string> RankSources;
  /// Environment variables that differ per rank (read with getenv).
  std::vector<std::string> RankEnvironment;
  /// Collectives (by OpName, or by function name for implicit ones) after
  /// which their tensors, and what they return, hold the same value on every
  /// rank of the group.
  std::vector<std::string> UniformOps;
  /// Calls that set or read a DTensor's placements.
  std::vector<PlacementCallEntry> PlacementCalls;

  /// The meshguard runtime, libtorch factories and c10d.
  static ApiModel builtin();

  /// Appends every entry of \p Other (a user file) to this model.
  void append(const ApiModel &Other);
};

} // namespace analysis
} // namespace meshguard

#endif // MESHGUARD_ANALYSIS_APIMODEL_H
