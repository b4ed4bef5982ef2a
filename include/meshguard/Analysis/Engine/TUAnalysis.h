//===--- TUAnalysis.h - One analysis per translation unit -------*- C++ -*-===//
//
// Every dtensor-* check of a translation unit asks the same engine: one API
// index, one summary provider (functions of this TU, and the database's for
// the others), one rank-divergence memo, one placement memo, and per function
// one provenance run whose call walk feeds every site scanner at once. The
// checks only report.
//
// A check asks for a function its own matcher picked; the facts of the run
// are kept, so the next check asking for the same function pays nothing.
// Checks configured with other limits or another API model get an engine of
// their own (SharedTU keys them by that configuration).
//
//===----------------------------------------------------------------------===//

#ifndef MESHGUARD_ANALYSIS_TUANALYSIS_H
#define MESHGUARD_ANALYSIS_TUANALYSIS_H

#include "meshguard/Analysis/Divergence/DivergentCollectives.h"
#include "meshguard/Analysis/Divergence/RankAtCalls.h"
#include "meshguard/Analysis/Divergence/UnverifiedReplicas.h"
#include "meshguard/Analysis/Facts/CheckpointSites.h"
#include "meshguard/Analysis/Facts/CollectiveSites.h"
#include "meshguard/Analysis/Facts/MixedOpSites.h"
#include "meshguard/Analysis/Facts/ProcessGroupSites.h"
#include "meshguard/Analysis/Placements/PlacementScan.h"
#include "meshguard/Analysis/Summaries/Summaries.h"
#include "llvm/ADT/DenseMap.h"
#include <memory>
#include <vector>

namespace meshguard {
namespace analysis {

/// What the provenance checks need of one function, from one run.
struct FunctionFacts {
  /// Sites are empty unless Result.ok().
  AnalysisResult Result;
  /// Mesh-inferred collectives (or calls reaching one) without a mesh.
  std::vector<CollectiveSite> Collectives;
  /// Tensor ops (or calls reaching one) mixing DTensors and plain tensors.
  std::vector<MixedOpSite> MixedOps;
  /// Raw process-group collectives (or calls reaching one) given DTensors.
  std::vector<ProcessGroupSite> ProcessGroupCalls;
  /// libtorch serialization (torch::save, torch::load) of DTensors, of
  /// to_local() results and of modules.
  std::vector<CheckpointSite> Checkpoints;
};

class TUAnalysis {
public:
  /// \p Database: where functions of other TUs are looked up (null: none);
  /// it must outlive the analysis.
  TUAnalysis(clang::ASTContext &Ctx, std::shared_ptr<const ApiIndex> Index,
             AnalysisLimits Limits, SummaryLookup *Database);
  ~TUAnalysis();

  /// Also find collectives without a mesh on some path only (StrictMode);
  /// before the first facts().
  void wantMaybeNoMesh() { WantMaybe = true; }

  /// The facts of \p FD (a definition with a body), from one provenance run.
  const FunctionFacts &facts(const clang::FunctionDecl &FD);
  /// The collectives of \p FD that not every rank reaches.
  DivergenceScan divergence(const clang::FunctionDecl &FD);
  /// The from_local calls of \p FD that call a rank-dependent tensor a
  /// replica without verifying it.
  UnverifiedReplicaScan unverifiedReplicas(const clang::FunctionDecl &FD);
  /// Whether a rank-dependent condition decides if each call of \p Argument
  /// runs, and whether its argument of that index differs per rank.
  RankAtCallsScan rankAtCalls(
      const clang::FunctionDecl &FD,
      const llvm::DenseMap<const clang::CallExpr *, unsigned> &Argument);
  /// What the placement analysis finds in \p FD (one run for the checks
  /// that read it): where one rank's part of a Partial DTensor is used as
  /// the value, and ops without a sharding rule on maybe-sharded DTensors.
  const PlacementScan &placements(const clang::FunctionDecl &FD);

  SummaryProvider &summaries() { return Summaries; }
  /// The memos the checks' scans fill (the summary export reads them).
  DivergenceMemo &divergenceMemo() { return Divergence; }
  PlacementMemo &placementMemo() { return Placements; }
  const ApiIndex &index() const { return *Index; }
  const AnalysisLimits &limits() const { return Limits; }
  clang::ASTContext &context() const { return Ctx; }
  /// Provenance runs so far (one per function asked about).
  unsigned provenanceRuns() const { return Facts.size(); }

private:
  clang::ASTContext &Ctx;
  std::shared_ptr<const ApiIndex> Index;
  AnalysisLimits Limits;
  SummaryProvider Summaries;
  DivergenceMemo Divergence;
  PlacementMemo Placements;
  bool WantMaybe = false;
  llvm::DenseMap<const clang::FunctionDecl *, std::unique_ptr<FunctionFacts>>
      Facts;
  llvm::DenseMap<const clang::FunctionDecl *, std::unique_ptr<PlacementScan>>
      PlacementScans;
};

} // namespace analysis
} // namespace meshguard

#endif // MESHGUARD_ANALYSIS_TUANALYSIS_H
