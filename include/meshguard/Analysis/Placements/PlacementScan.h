//===--- PlacementScan.h - What DTensor placements lead to ------*- C++ -*-===//
//
// One may-analysis of DTensor placements and meshes per function
// (Placements/PlacementFacts.h: from distribute_tensor, from_local,
// redistribute, and op results by the runtime's own rule table), and what
// three checks read of it:
// - where one rank's share of a Partial value (to_local() of a DTensor that
//   may be Partial) is used as the full value: item(), a non-linear op,
//   printed, saved, in the function or inside a helper of the TU;
// - ops the rule table refuses, given a DTensor that may be sharded or
//   Partial;
// - DTensors on surely different meshes combined in one op or one list.
//
//===----------------------------------------------------------------------===//

#ifndef MESHGUARD_ANALYSIS_PLACEMENTSCAN_H
#define MESHGUARD_ANALYSIS_PLACEMENTSCAN_H

#include "meshguard/Analysis/Api/ApiIndex.h"
#include "meshguard/Analysis/Provenance/FunctionAnalysis.h"
#include "clang/AST/Expr.h"
#include "llvm/ADT/SmallVector.h"
#include <memory>
#include <string>
#include <vector>

namespace meshguard {
namespace analysis {

struct ExternalSite;
struct HelperPlacements;
class SummaryLookup;

/// Where a note points: an expression of this TU or, for a fact that the
/// summary of a helper of another file gave, a place in that file.
struct NotePlace {
  const clang::Expr *Here = nullptr;
  const ExternalSite *Elsewhere = nullptr;

  NotePlace() = default;
  NotePlace(const clang::Expr *Here) : Here(Here) {}
  NotePlace(const ExternalSite *Elsewhere) : Elsewhere(Elsewhere) {}
  explicit operator bool() const { return Here || Elsewhere; }
  bool operator==(const NotePlace &O) const {
    return Here == O.Here && Elsewhere == O.Elsewhere;
  }
  bool operator!=(const NotePlace &O) const { return !(*this == O); }
};

enum class FullUseKind {
  /// `.item()`: the scalar of one rank's contribution.
  Item,
  /// An op whose rule does not keep Partial (pow, sqrt, a comparison).
  NonLinearOp,
  /// Written to a stream.
  Printed,
  /// Saved (torch::save).
  Saved,
  /// Passed to a helper that uses its parameter as a full value.
  Helper,
};

struct PartialLocalUse {
  /// The expression that uses the local value as the full one.
  const clang::Expr *Use = nullptr;
  FullUseKind Kind = FullUseKind::Item;
  /// "aten::pow" (NonLinearOp), the helper's name (Helper).
  std::string What;
  /// The to_local call that gave the partial local value (inside a helper
  /// of another file when that helper returned it).
  NotePlace ToLocal;
  /// Where the DTensor may have become Partial (from_local with a Partial
  /// placement, a reduction of a sharded value), when known.
  NotePlace PartialOrigin;
  /// Helper: the use inside it.
  NotePlace InnerUse;
  /// The share is a reduction of one rank's shard (to_local of a Shard,
  /// then reduced over the sharded dim at PartialOrigin), not of a Partial.
  bool OfShard = false;
};

/// A tensor op the runtime's rule table refuses on sharded or Partial
/// operands (no sharding rule), given a DTensor that may be either.
struct UnruledOp {
  const clang::CallExpr *Call = nullptr;
  /// "aten::dot".
  std::string Name;
  /// The operands that may be sharded or Partial.
  llvm::SmallVector<const clang::Expr *, 2> Operands;
  /// Where the first of them got its placements.
  NotePlace PlacedAt;
  bool MayPartial = false;
  /// The mesh's number of dims, when every such operand's placements were
  /// spelled with the same count; 0 when unknown.
  unsigned MeshDims = 0;
};

/// Two DTensors on surely different meshes in one op, or in one braced
/// list given to a libtorch function (cat, stack, clip_grad_norm_, the
/// foreach ops).
struct MixedMeshSite {
  const clang::CallExpr *Call = nullptr;
  /// The op ("aten::add") or the function ("torch::stack").
  std::string Name;
  bool InList = false;
  /// A module (First) applied to a DTensor (Second) on another mesh.
  bool Module = false;
  const clang::Expr *First = nullptr, *Second = nullptr;
  /// "mesh [4]", "a 2-D mesh".
  std::string FirstMesh, SecondMesh;
  /// Where each was put on its mesh.
  NotePlace FirstAt, SecondAt;
};

/// from_local() without run_check, every placement Replicate, given one
/// rank's shard or partial contribution of a DTensor (its to_local()).
struct LocalReplica {
  const clang::CallExpr *Call = nullptr;
  const clang::Expr *Local = nullptr;
  /// Where it was made local; where the DTensor got its placements.
  NotePlace ToLocal, PlacedAt;
  bool Partial = false;
  /// run_check as written (null: left to its default), and its index.
  const clang::Expr *VerifyArg = nullptr;
  unsigned VerifyIndex = 0;
};

/// An all-Replicate from_local without run_check whose local tensor may
/// differ per rank in a way the rank analysis does not follow by itself:
/// it was unpacked by a structured binding from a call (`auto [x, y] =
/// shard(data, rank)`), or drawn from a generator (a random factory after
/// `manual_seed(seed)`, or given a Generator). The rank analysis is asked
/// whether Probe's argument ProbeArg differs per rank.
///
/// Or (StyleInput) a plain tensor given to a module whose tensor-parallel
/// style takes its plain input as a replica (ColwiseParallel by default,
/// any style with input_layouts Replicate): parallel_forward(module, x)
/// wraps x by from_local without a check. Call and Probe are that call,
/// Style the parallelize_module call that gave the module its style.
struct ReplicaSourceCandidate {
  enum class Kind { Binding, Seeded, Generator, StyleInput };
  Kind What = Kind::Binding;
  const clang::CallExpr *Call = nullptr; ///< the from_local
  const clang::Expr *Local = nullptr;
  const clang::CallExpr *Probe = nullptr;
  unsigned ProbeArg = 0;
  /// run_check as written (null: left to its default), and its index.
  const clang::Expr *VerifyArg = nullptr;
  unsigned VerifyIndex = 0;
  /// StyleInput: where the module got its style.
  const clang::CallExpr *Style = nullptr;
};

/// The candidates of \p FD, in source order (one or more probes per
/// from_local: a call's arguments one by one).
std::vector<ReplicaSourceCandidate>
replicaSourceCandidates(const clang::FunctionDecl &FD, const ApiIndex &Index,
                        clang::ASTContext &Ctx);

/// What the placement analysis found in one function.
struct PlacementScan {
  AnalysisResult Result;
  std::vector<PartialLocalUse> PartialUses;
  std::vector<UnruledOp> UnruledOps;
  std::vector<MixedMeshSite> MixedMeshes;
  std::vector<LocalReplica> LocalReplicas;
};

/// Per-TU memo of the helpers' placement facts (what a helper returns, and
/// which parameters it uses as full values); a helper without a body here
/// reads its entry of the summary database. Must not outlive the AST.
class PlacementMemo {
public:
  PlacementMemo(clang::ASTContext &Ctx, const ApiIndex &Index,
                AnalysisLimits Limits);
  ~PlacementMemo();
  void setDatabase(SummaryLookup *DB);
  /// \p FD's facts (null: none known); what the summary export writes.
  const HelperPlacements *summary(const clang::FunctionDecl &FD);
  /// Whether the file's setup function distributes a module parameter like
  /// one of \p FD's (ModuleSetups): its parameters' reads then have
  /// placements although \p FD calls no placement API itself.
  bool distributedElsewhere(const clang::FunctionDecl &FD);
  struct Impl;
  Impl &impl() { return *State; }

private:
  std::unique_ptr<Impl> State;
};

/// What the placement analysis finds in \p FD, each list in source order.
PlacementScan scanPlacements(const clang::FunctionDecl &FD,
                             PlacementMemo &Memo);

} // namespace analysis
} // namespace meshguard

#endif // MESHGUARD_ANALYSIS_PLACEMENTSCAN_H
