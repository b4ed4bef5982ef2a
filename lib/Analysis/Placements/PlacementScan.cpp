//===--- PlacementScan.cpp - What DTensor placements lead to --------------===//
//
// Runs the placement flow over a function (PlacementFlow.h) and collects
// what the sites (PlacementSites.cpp) find at each call. Helpers of the TU
// are summarised once (PlacementMemo): what they return, and which
// parameters they use as full values (each tensor parameter seeded as a
// partial local value of its own).
//
//===----------------------------------------------------------------------===//

#include "meshguard/Analysis/Placements/PlacementScan.h"
#include "Placements/ModuleFacts.h"
#include "Placements/PlacementFacts.h"
#include "Placements/PlacementFlow.h"
#include "Placements/PlacementSites.h"
#include "meshguard/Analysis/Summaries/SummaryDatabase.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/DenseSet.h"

using namespace clang;

namespace meshguard {
namespace analysis {

struct PlacementMemo::Impl {
  ASTContext &Ctx;
  const ApiIndex &Index;
  AnalysisLimits Limits;
  SummaryLookup *Database = nullptr;
  /// Null while being computed (recursion: unknown).
  llvm::DenseMap<const FunctionDecl *, std::unique_ptr<HelperPlacements>>
      Helpers;
  /// The places imported facts point to.
  std::vector<std::unique_ptr<ExternalSite>> ExternalSites;
  /// The file's functions' calls on module parameters, built at first use.
  std::unique_ptr<ModuleSetups> Setups;

  const ModuleSetups &setups() {
    if (!Setups)
      Setups = std::make_unique<ModuleSetups>(Index, Ctx);
    return *Setups;
  }

  const HelperPlacements *helper(const FunctionDecl &FD);
  std::unique_ptr<HelperPlacements> summarise(const FunctionDecl &FD);
  std::unique_ptr<HelperPlacements> imported(const FunctionDecl &FD);
  const ExternalSite *keep(const std::optional<ExternalSite> &At) {
    if (!At)
      return nullptr;
    ExternalSites.push_back(std::make_unique<ExternalSite>(*At));
    return ExternalSites.back().get();
  }
  PlacementTransfer transfer() {
    return PlacementTransfer(
        Ctx, Index, [this](const FunctionDecl &FD) { return helper(FD); });
  }
};

PlacementMemo::PlacementMemo(ASTContext &Ctx, const ApiIndex &Index,
                             AnalysisLimits Limits)
    : State(new Impl{Ctx, Index, Limits, nullptr,
                     llvm::DenseMap<const FunctionDecl *,
                                    std::unique_ptr<HelperPlacements>>(),
                     std::vector<std::unique_ptr<ExternalSite>>()}) {}
PlacementMemo::~PlacementMemo() = default;

void PlacementMemo::setDatabase(SummaryLookup *DB) { State->Database = DB; }

const HelperPlacements *PlacementMemo::summary(const FunctionDecl &FD) {
  return State->helper(FD);
}

bool PlacementMemo::distributedElsewhere(const FunctionDecl &FD) {
  return llvm::any_of(FD.parameters(), [&](const ParmVarDecl *P) {
    return !State->setups().like(*P).empty();
  });
}

const HelperPlacements *PlacementMemo::Impl::helper(const FunctionDecl &FD) {
  auto [It, New] = Helpers.try_emplace(&FD);
  if (!New)
    return It->second.get();
  std::unique_ptr<HelperPlacements> Summary =
      FD.doesThisDeclarationHaveABody() ? summarise(FD) : imported(FD);
  // The map may have grown while summarising: look the slot up again.
  return (Helpers[&FD] = std::move(Summary)).get();
}

std::unique_ptr<HelperPlacements>
PlacementMemo::Impl::imported(const FunctionDecl &FD) {
  const StoredSummary *Stored = lookupCallee(Database, FD, Index);
  if (!Stored || !Stored->Placements)
    return nullptr;
  const StoredPlacements &Facts = *Stored->Placements;
  auto Summary = std::make_unique<HelperPlacements>();
  Summary->FullUseOfParam.assign(FD.getNumParams(), NotePlace());
  // A fact about a parameter the declaration does not have is dropped.
  for (const auto &[Param, At] : Facts.FullUses)
    if (Param < FD.getNumParams() && !Summary->FullUseOfParam[Param])
      Summary->FullUseOfParam[Param] = keep(At);
  if (const std::optional<StoredPlacementReturn> &R = Facts.Return) {
    PlacementState S;
    S.What = R->PartialLocal ? PlacementState::Kind::PartialLocal
                             : PlacementState::Kind::DTensor;
    S.ShardDims = R->ShardDims;
    S.MayPartial = R->MayPartial;
    S.MeshDims = R->MeshDims;
    S.PartialOrigin = keep(R->Origin);
    S.PlacedAt = keep(R->Placed);
    S.MeshAt = keep(R->Mesh);
    S.ToLocal = keep(R->ToLocal);
    if (R->PassThrough && *R->PassThrough < FD.getNumParams()) {
      S.Param = FD.getParamDecl(*R->PassThrough);
      S.LocalOfParam = R->LocalOfPass;
    }
    if (!R->PassThrough || S.Param)
      Summary->Returns = S;
  }
  return Summary;
}

std::unique_ptr<HelperPlacements>
PlacementMemo::Impl::summarise(const FunctionDecl &FD) {
  AnalysisOutcome Outcome;
  std::unique_ptr<CFG> Cfg = buildAdmittedCFG(FD, Ctx, Limits, Outcome);
  if (!Cfg)
    return nullptr;
  // Each tensor parameter stands for a partial local value of its own.
  PlacementVars Entry;
  for (const ParmVarDecl *P : FD.parameters())
    if (Index.isTensorType(P->getType())) {
      PlacementState S;
      S.What = PlacementState::Kind::PartialLocal;
      S.Param = P;
      Entry[{P, nullptr}] = S;
    }
  PlacementTransfer T = transfer();
  ModulePlacements Modules(FD, Index, Ctx, &setups());
  T.setModules(&Modules);
  PlacementFlow Flow(*Cfg, T, std::move(Entry));
  if (!Flow.solve(Limits))
    return nullptr;
  auto Summary = std::make_unique<HelperPlacements>();
  Summary->FullUseOfParam.assign(FD.getNumParams(), NotePlace());
  bool Any = false;
  Flow.visit([&](const Stmt *S, const PlacementVars &Vars) {
    if (const auto *Ret = dyn_cast<ReturnStmt>(S)) {
      if (std::optional<PlacementState> R =
              T.evaluate(Ret->getRetValue(), Vars)) {
        if (Summary->Returns)
          Summary->Returns->join(*R);
        else
          Summary->Returns = R;
        Any = true;
      }
      return;
    }
    llvm::SmallVector<FoundUse, 1> Uses;
    partialLocalUsesAt(S, Vars, T, Uses);
    for (const FoundUse &U : Uses)
      if (const ParmVarDecl *P = U.Value.Param; P && !U.Value.LocalOfParam) {
        NotePlace &Slot = Summary->FullUseOfParam[P->getFunctionScopeIndex()];
        if (!Slot) {
          Slot = U.Use.InnerUse ? U.Use.InnerUse : NotePlace(U.Use.Use);
          Any = true;
        }
      }
  });
  if (!Any)
    return nullptr;
  return Summary;
}

PlacementScan scanPlacements(const FunctionDecl &FD, PlacementMemo &Memo) {
  PlacementScan Scan;
  PlacementMemo::Impl &M = Memo.impl();
  std::unique_ptr<CFG> Cfg =
      buildAdmittedCFG(FD, M.Ctx, M.Limits, Scan.Result.Outcome);
  if (!Cfg)
    return Scan;
  PlacementTransfer T = M.transfer();
  ModulePlacements Modules(FD, M.Index, M.Ctx, &M.setups());
  T.setModules(&Modules);
  PlacementFlow Flow(*Cfg, T, PlacementVars());
  if (!Flow.solve(M.Limits)) {
    Scan.Result.Outcome = AnalysisOutcome::BlockVisitLimit;
    return Scan;
  }
  llvm::DenseSet<const Expr *> Seen;
  Flow.visit([&](const Stmt *S, const PlacementVars &Vars) {
    llvm::SmallVector<FoundUse, 1> Uses;
    partialLocalUsesAt(S, Vars, T, Uses);
    for (FoundUse &U : Uses)
      if (U.Value.ToLocal && Seen.insert(U.Use.Use).second)
        Scan.PartialUses.push_back(std::move(U.Use));
    if (std::optional<UnruledOp> U = unruledOpAt(S, Vars, T))
      if (Seen.insert(U->Call).second)
        Scan.UnruledOps.push_back(std::move(*U));
    if (std::optional<MixedMeshSite> Site = mixedMeshesAt(S, Vars, T, M.Ctx))
      Scan.MixedMeshes.push_back(std::move(*Site));
    if (std::optional<LocalReplica> R = localReplicaAt(S, Vars, T, M.Ctx))
      if (Seen.insert(R->Call).second)
        Scan.LocalReplicas.push_back(*R);
  });
  const SourceManager &SM = M.Ctx.getSourceManager();
  auto Before = [&](const Expr *A, const Expr *B) {
    return SM.isBeforeInTranslationUnit(A->getBeginLoc(), B->getBeginLoc());
  };
  llvm::stable_sort(Scan.PartialUses,
                    [&](const PartialLocalUse &A, const PartialLocalUse &B) {
                      return Before(A.Use, B.Use);
                    });
  llvm::stable_sort(Scan.UnruledOps,
                    [&](const UnruledOp &A, const UnruledOp &B) {
                      return Before(A.Call, B.Call);
                    });
  llvm::stable_sort(Scan.MixedMeshes,
                    [&](const MixedMeshSite &A, const MixedMeshSite &B) {
                      return Before(A.Call, B.Call);
                    });
  return Scan;
}

} // namespace analysis
} // namespace meshguard
