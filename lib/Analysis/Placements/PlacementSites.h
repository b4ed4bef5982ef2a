//===--- PlacementSites.h - What the checks find at a call ------*- C++ -*-===//

#ifndef MESHGUARD_LIB_ANALYSIS_PLACEMENTSITES_H
#define MESHGUARD_LIB_ANALYSIS_PLACEMENTSITES_H

#include "Placements/PlacementFacts.h"
#include "meshguard/Analysis/Placements/PlacementScan.h"
#include "llvm/ADT/SmallVector.h"
#include <optional>

namespace meshguard {
namespace analysis {

/// A use of a partial local value as the full one, with the value's facts.
struct FoundUse {
  PartialLocalUse Use;
  PlacementState Value;
};

/// The uses \p S makes of partial local values under \p Vars.
void partialLocalUsesAt(const clang::Stmt *S, const PlacementVars &Vars,
                        const PlacementTransfer &T,
                        llvm::SmallVectorImpl<FoundUse> &Out);

/// An op without a sharding rule given a DTensor that may be sharded or
/// Partial, at \p S.
std::optional<UnruledOp> unruledOpAt(const clang::Stmt *S,
                                     const PlacementVars &Vars,
                                     const PlacementTransfer &T);

/// DTensors of different meshes in one op at \p S, or in one braced list
/// given to a libtorch function.
std::optional<MixedMeshSite> mixedMeshesAt(const clang::Stmt *S,
                                           const PlacementVars &Vars,
                                           const PlacementTransfer &T,
                                           clang::ASTContext &Ctx);

/// from_local() without run_check, every placement Replicate, given a
/// shard's or a Partial value's local tensor, at \p S.
std::optional<LocalReplica> localReplicaAt(const clang::Stmt *S,
                                           const PlacementVars &Vars,
                                           const PlacementTransfer &T,
                                           clang::ASTContext &Ctx);

/// Whether \p Call is an all-Replicate from_local without run_check (or
/// with run_check false); sets the verify argument's facts.
bool unverifiedReplicate(const clang::CallExpr &Call, const ApiIndex &Index,
                         clang::ASTContext &Ctx, const clang::Expr *&VerifyArg,
                         unsigned &VerifyIndex);

} // namespace analysis
} // namespace meshguard

#endif // MESHGUARD_LIB_ANALYSIS_PLACEMENTSITES_H
