//===--- UnverifiedReplicas.cpp - Replicate claims that are false ---------===//

#include "meshguard/Analysis/Divergence/UnverifiedReplicas.h"
#include "Divergence/RankFlow.h"
#include "Placements/PlacementFacts.h"
#include "meshguard/Analysis/Provenance/TensorOperands.h"
#include "meshguard/Analysis/Summaries/SummaryDatabase.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Basic/SourceManager.h"

using namespace clang;

namespace meshguard {
namespace analysis {

namespace {

struct Candidate {
  const CFGBlock *Block;
  const CallExpr *Call;
  const PlacementCallEntry *Entry;
};

/// A call of a helper that wraps some parameter as a replica.
struct HelperCandidate {
  const CFGBlock *Block;
  const CallExpr *Call;
  const FunctionDecl *Callee;
};

/// The verify argument as written, or null when it is left to its default.
const Expr *writtenArg(const CallExpr &Call, int Index) {
  if (Index < 0 || unsigned(Index) >= Call.getNumArgs() ||
      isa<CXXDefaultArgExpr>(Call.getArg(Index)))
    return nullptr;
  return Call.getArg(Index);
}

/// All-Replicate from_local calls that do not verify their claim.
bool unverifiedReplicate(const CallExpr &Call, const PlacementCallEntry &E,
                         ASTContext &Ctx) {
  if (E.Role != PlacementRole::SetsPlacements || E.VerifyArg < 0 ||
      E.PlacementsArg < 0 || unsigned(E.PlacementsArg) >= Call.getNumArgs() ||
      !spellsOnlyReplicate(Call.getArg(E.PlacementsArg)))
    return false;
  const Expr *Verify = writtenArg(Call, E.VerifyArg);
  if (!Verify)
    return true;
  bool Value = true;
  return !Verify->isValueDependent() &&
         Verify->EvaluateAsBooleanCondition(Value, Ctx) && !Value;
}

} // namespace

llvm::ArrayRef<ReplicaParameter>
DivergenceMemo::replicaParameters(const FunctionDecl &FD) {
  return memoized(Replicas, FD, [&] { return computeReplicas(FD); });
}

std::vector<ReplicaParameter>
DivergenceMemo::computeReplicas(const FunctionDecl &FD) {
  // The model's own functions (from_local itself) are no helpers.
  if (isModelFunction(Index, FD))
    return {};
  const FunctionDecl *Def = FD.getDefinition();
  if (!Def)
    return importedReplicas(FD);
  const SourceManager &SM = Ctx.getSourceManager();
  if (!Def->getBody() || Def->param_empty() ||
      SM.isInSystemHeader(SM.getExpansionLoc(Def->getLocation())))
    return {};
  // Cheap first: no from_local of its own and no helper that wraps.
  llvm::SmallVector<const CallExpr *, 16> Calls;
  callsIn(Def->getBody(), Calls);
  bool Wraps = llvm::any_of(Calls, [&](const CallExpr *Call) {
    const FunctionDecl *Callee = Call->getDirectCallee();
    if (const PlacementCallEntry *P = Index.placementCall(Callee))
      return unverifiedReplicate(*Call, *P, Ctx);
    return Callee && !replicaParameters(*Callee).empty();
  });
  if (!Wraps)
    return {};
  std::unique_ptr<MarkedRankFlow> Marked = markedFlow(*Def);
  if (!Marked)
    return {};
  RankFlow &Flow = *Marked->Flow;
  std::vector<ReplicaParameter> Found;
  auto Add = [&](std::optional<unsigned> Param, ReplicaParameter Inner) {
    if (Param && llvm::none_of(Found, [&](const ReplicaParameter &R) {
          return R.Param == *Param;
        })) {
      Inner.Param = *Param;
      Found.push_back(Inner);
    }
  };
  forEachCall(*Marked->Cfg, [&](const CFGBlock *B, const CallExpr &Call) {
    const FunctionDecl *Callee = Call.getDirectCallee();
    if (const PlacementCallEntry *P = Index.placementCall(Callee)) {
      if (unverifiedReplicate(Call, *P, Ctx))
        Add(markedParameter(Flow.originBefore(Call.getArg(0), B, &Call)),
            {0, &Call, Def, nullptr});
      return;
    }
    if (!Callee)
      return;
    llvm::ArrayRef<const Expr *> Args = parameterArguments(Call);
    for (const ReplicaParameter &Inner : replicaParameters(*Callee))
      if (Inner.Param < Args.size())
        Add(markedParameter(Flow.originBefore(Args[Inner.Param], B, &Call)),
            Inner);
  });
  return Found;
}

std::vector<ReplicaParameter>
DivergenceMemo::importedReplicas(const FunctionDecl &FD) {
  const StoredSummary *Stored = lookupCallee(Database, FD, Index);
  if (!Stored || !Stored->Placements)
    return {};
  std::vector<ReplicaParameter> Found;
  for (const auto &[Param, At] : Stored->Placements->Replicas)
    if (Param < FD.getNumParams()) {
      ExternalSites.push_back(std::make_unique<ExternalSite>(At));
      Found.push_back({Param, nullptr, nullptr, ExternalSites.back().get()});
    }
  return Found;
}

UnverifiedReplicaScan findUnverifiedReplicas(const FunctionDecl &FD,
                                             DivergenceMemo &Memo,
                                             const ApiIndex &Index,
                                             const AnalysisLimits &Limits) {
  UnverifiedReplicaScan Scan;
  ASTContext &Ctx = Memo.context();
  std::unique_ptr<CFG> Cfg =
      buildAdmittedCFG(FD, Ctx, Limits, Scan.Result.Outcome);
  if (!Cfg)
    return Scan;
  std::vector<Candidate> Candidates;
  std::vector<HelperCandidate> Helpers;
  forEachCall(*Cfg, [&](const CFGBlock *B, const CallExpr &Call) {
    const FunctionDecl *Callee = Call.getDirectCallee();
    if (const PlacementCallEntry *P = Index.placementCall(Callee)) {
      if (Call.getNumArgs() && unverifiedReplicate(Call, *P, Ctx))
        Candidates.push_back({B, &Call, P});
    } else if (Callee && !Memo.replicaParameters(*Callee).empty()) {
      Helpers.push_back({B, &Call, Callee});
    }
  });
  if (Candidates.empty() && Helpers.empty())
    return Scan;
  // Parameters start uniform: a rank-dependent argument is the caller's.
  RankFlow Flow(FD, *Cfg, Memo.rankFacts(), {});
  if (!Flow.solve(Limits)) {
    Scan.Result.Outcome = AnalysisOutcome::BlockVisitLimit;
    return Scan;
  }
  for (const Candidate &C : Candidates) {
    const Expr *Local = C.Call->getArg(0);
    if (const Expr *Origin = Flow.originBefore(Local, C.Block, C.Call))
      Scan.Sites.push_back({C.Call, Local, Origin,
                            writtenArg(*C.Call, C.Entry->VerifyArg),
                            unsigned(C.Entry->VerifyArg)});
  }
  // A helper that wraps a parameter given a rank-dependent argument: at
  // the call, with the from_local inside as a note.
  for (const HelperCandidate &H : Helpers) {
    llvm::ArrayRef<const Expr *> Args = parameterArguments(*H.Call);
    for (const ReplicaParameter &R : Memo.replicaParameters(*H.Callee)) {
      if (R.Param >= Args.size())
        continue;
      if (const Expr *Origin =
              Flow.originBefore(Args[R.Param], H.Block, H.Call)) {
        UnverifiedReplica Site;
        Site.Call = H.Call;
        Site.Local = Args[R.Param];
        Site.RankOrigin = Origin;
        Site.Helper = H.Callee;
        Site.Inner = R;
        Scan.Sites.push_back(Site);
        break;
      }
    }
  }
  const SourceManager &SM = Ctx.getSourceManager();
  llvm::stable_sort(
      Scan.Sites, [&](const UnverifiedReplica &A, const UnverifiedReplica &B) {
        return SM.isBeforeInTranslationUnit(A.Call->getBeginLoc(),
                                            B.Call->getBeginLoc());
      });
  return Scan;
}

} // namespace analysis
} // namespace meshguard
