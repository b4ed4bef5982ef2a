//===--- UnverifiedReplicas.cpp - Replicate claims that are false ---------===//

#include "meshguard/Analysis/UnverifiedReplicas.h"
#include "Divergence/RankFlow.h"
#include "Placements/PlacementFacts.h"
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
  forEachCall(*Cfg, [&](const CFGBlock *B, const CallExpr &Call) {
    if (const PlacementCallEntry *P =
            Index.placementCall(Call.getDirectCallee());
        P && Call.getNumArgs() && unverifiedReplicate(Call, *P, Ctx))
      Candidates.push_back({B, &Call, P});
  });
  if (Candidates.empty())
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
