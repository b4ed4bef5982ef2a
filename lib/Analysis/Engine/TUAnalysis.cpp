//===--- TUAnalysis.cpp - One analysis per translation unit ---------------===//

#include "meshguard/Analysis/Engine/TUAnalysis.h"

using namespace clang;

namespace meshguard {
namespace analysis {

TUAnalysis::TUAnalysis(ASTContext &Ctx, std::shared_ptr<const ApiIndex> Index,
                       AnalysisLimits Limits, SummaryLookup *Database)
    : Ctx(Ctx), Index(std::move(Index)), Limits(Limits),
      Summaries(Ctx, *this->Index, Limits),
      Divergence(Ctx, *this->Index, Limits),
      Placements(Ctx, *this->Index, Limits) {
  Summaries.setDatabase(Database);
  Divergence.setDatabase(Database);
  Placements.setDatabase(Database);
}

TUAnalysis::~TUAnalysis() = default;

const FunctionFacts &TUAnalysis::facts(const FunctionDecl &FD) {
  std::unique_ptr<FunctionFacts> &Slot = Facts[&FD];
  if (Slot)
    return *Slot;
  Slot = std::make_unique<FunctionFacts>();
  FunctionFacts &F = *Slot;
  std::unique_ptr<SiteCollector> Collectors[] = {
      collectCollectives(FD, *Index, &Summaries, WantMaybe, F.Collectives),
      collectMixedOps(FD, *Index, &Summaries, F.MixedOps),
      collectProcessGroupCalls(*Index, &Summaries, F.ProcessGroupCalls),
      collectCheckpointCalls(*Index, &Summaries, F.Checkpoints)};
  SiteCollector *Watching[] = {Collectors[0].get(), Collectors[1].get(),
                               Collectors[2].get(), Collectors[3].get()};
  F.Result = runCollectors(FD, Ctx, *Index, Limits,
                           {&Summaries, &Summaries.captures()}, Watching);
  return F;
}

DivergenceScan TUAnalysis::divergence(const FunctionDecl &FD) {
  return findDivergentCollectives(FD, Divergence, *Index, Limits);
}

UnverifiedReplicaScan TUAnalysis::unverifiedReplicas(const FunctionDecl &FD) {
  return findUnverifiedReplicas(FD, Divergence, *Index, Limits);
}

RankAtCallsScan TUAnalysis::rankAtCalls(
    const FunctionDecl &FD,
    const llvm::DenseMap<const CallExpr *, unsigned> &Argument) {
  return analysis::rankAtCalls(FD, Argument, Divergence, Limits);
}

const PlacementScan &TUAnalysis::placements(const FunctionDecl &FD) {
  std::unique_ptr<PlacementScan> &Slot = PlacementScans[&FD];
  if (!Slot)
    Slot = std::make_unique<PlacementScan>(scanPlacements(FD, Placements));
  return *Slot;
}

} // namespace analysis
} // namespace meshguard
