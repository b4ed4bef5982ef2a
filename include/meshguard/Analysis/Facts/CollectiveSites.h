//===--- CollectiveSites.h - Mesh-inferred collectives ----------*- C++ -*-===//
//
// Runs the provenance analysis on a function and reports, for every call to a
// mesh-inferred collective, whether its tensor arguments can carry a
// DeviceMesh, with the facts a diagnostic needs (where each argument became
// plain, which DTensors are available at the call).
//
//===----------------------------------------------------------------------===//

#ifndef MESHGUARD_ANALYSIS_COLLECTIVESITES_H
#define MESHGUARD_ANALYSIS_COLLECTIVESITES_H

#include "meshguard/Analysis/Facts/SiteScan.h"
#include "meshguard/Analysis/Provenance/FunctionAnalysis.h"
#include "meshguard/Analysis/Provenance/OperandFacts.h"
#include "clang/AST/Expr.h"
#include "llvm/ADT/SmallVector.h"
#include <memory>
#include <vector>

namespace meshguard {
namespace analysis {

struct ExternalSite;

enum class MeshVerdict {
  /// Some argument can carry a mesh, or the analysis does not know.
  MayHaveMesh,
  /// Every tensor argument is plain on every path.
  NoMesh,
  /// Every argument is known; on some path all are plain.
  MaybeNoMesh,
};

struct CollectiveSite {
  /// The collective, or a call to a function of this TU that reaches one.
  const clang::CallExpr *Call;
  const MeshCollectiveEntry *Entry;
  /// For a call that reaches a collective: the collective inside the callee.
  const clang::CallExpr *Inner = nullptr;
  MeshVerdict Verdict;
  llvm::SmallVector<OperandFact, 4> Operands;
  /// Tensor variables that are surely DTensors before the call (candidates
  /// for `*mesh_of(x)`); filled only when Verdict is not MayHaveMesh.
  llvm::SmallVector<const clang::VarDecl *, 4> DTensorVars;
  /// Or, instead of Inner, for a callee of another TU (summary database):
  /// where its collective is.
  const ExternalSite *InnerElsewhere = nullptr;
};

class SummaryProvider;

/// Watches a run of \p FD (runCollectors) for its collectives without a
/// mesh, into \p Sites. With \p Summaries, calls to functions of this TU are
/// followed: their return values, and calls whose plain argument reaches a
/// collective inside. \p WantMaybe: also find MaybeNoMesh sites. Each is
/// confirmed against the flow condition (so that correlated branches are not
/// reported), a query whose cost grows with the function: only StrictMode
/// asks for them.
std::unique_ptr<SiteCollector>
collectCollectives(const clang::FunctionDecl &FD, const ApiIndex &Index,
                   SummaryProvider *Summaries, bool WantMaybe,
                   std::vector<CollectiveSite> &Sites);

} // namespace analysis
} // namespace meshguard

#endif // MESHGUARD_ANALYSIS_COLLECTIVESITES_H
