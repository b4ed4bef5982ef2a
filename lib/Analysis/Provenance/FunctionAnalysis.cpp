//===--- FunctionAnalysis.cpp - Run the provenance model on a function ----===//

#include "meshguard/Analysis/Provenance/FunctionAnalysis.h"
#include "Provenance/CDCLSolver.h"
#include "Provenance/DeadValues.h"
#include "Provenance/ProvenanceModel.h"
#include "meshguard/Analysis/Provenance/LambdaCaptures.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Analysis/FlowSensitive/AdornedCFG.h"
#include "clang/Analysis/FlowSensitive/Arena.h"
#include "clang/Analysis/FlowSensitive/DataflowAnalysisContext.h"
#include "clang/Analysis/FlowSensitive/TypeErasedDataflowAnalysis.h"
#include "llvm/Support/Error.h"

using namespace clang;
using namespace clang::dataflow;

namespace meshguard {
namespace analysis {

llvm::StringRef describe(AnalysisOutcome Outcome) {
  switch (Outcome) {
  case AnalysisOutcome::Done:
    return "done";
  case AnalysisOutcome::NoCFG:
    return "no control-flow graph could be built";
  case AnalysisOutcome::HasErrors:
    return "the function has compile errors";
  case AnalysisOutcome::SATLimit:
    return "the SAT solver budget (MaxSATConflicts) was spent";
  case AnalysisOutcome::BlockVisitLimit:
    return "the block visit limit (MaxBlockVisits) was reached";
  case AnalysisOutcome::TooLarge:
    return "the function is larger than MaxFunctionElements";
  case AnalysisOutcome::OtherError:
    return "the dataflow framework gave up";
  }
  return "unknown";
}

namespace {
/// Finds expressions that contain errors (RecoveryExpr and what depends on
/// it): provenance through them is unknowable, so such functions are skipped.
/// Also counts the statements and expressions, which bound the CFG's
/// elements from below: a function too large is refused before its CFG is
/// built (for a 100k-statement function that took a second per check).
class BodyScan : public RecursiveASTVisitor<BodyScan> {
public:
  bool VisitStmt(Stmt *) {
    ++Stmts;
    return true;
  }
  bool VisitExpr(Expr *E) {
    if (E->containsErrors()) {
      Found = true;
      return false;
    }
    return true;
  }
  bool Found = false;
  std::int64_t Stmts = 0;
};
} // namespace

bool exceedsElements(const CFG &G, const AnalysisLimits &Limits) {
  std::int64_t N = 0;
  for (const CFGBlock *B : G)
    N += B->size();
  return N > Limits.MaxFunctionElements;
}

AnalysisOutcome admitFunction(const FunctionDecl &FD,
                              const AnalysisLimits &Limits) {
  if (!FD.doesThisDeclarationHaveABody() || FD.isDependentContext() ||
      FD.isInvalidDecl())
    return AnalysisOutcome::NoCFG;
  BodyScan Body;
  Body.TraverseStmt(FD.getBody());
  if (Body.Found)
    return AnalysisOutcome::HasErrors;
  if (Body.Stmts > Limits.MaxFunctionElements)
    return AnalysisOutcome::TooLarge;
  return AnalysisOutcome::Done;
}

std::unique_ptr<CFG> buildAdmittedCFG(const FunctionDecl &FD, ASTContext &Ctx,
                                      const AnalysisLimits &Limits,
                                      AnalysisOutcome &Outcome) {
  Outcome = admitFunction(FD, Limits);
  if (Outcome != AnalysisOutcome::Done)
    return nullptr;
  CFG::BuildOptions Opts;
  std::unique_ptr<CFG> Cfg = CFG::buildCFG(&FD, FD.getBody(), &Ctx, Opts);
  if (!Cfg)
    Outcome = AnalysisOutcome::NoCFG;
  else if (exceedsElements(*Cfg, Limits))
    Outcome = AnalysisOutcome::TooLarge;
  return Outcome == AnalysisOutcome::Done ? std::move(Cfg) : nullptr;
}

AnalysisResult analyzeFunction(const FunctionDecl &FD, ASTContext &Ctx,
                               const ApiIndex &Index,
                               const AnalysisLimits &Limits,
                               ElementVisitor Visit, OtherFunctions Others,
                               EntryVisitor OnEntry, ExitVisitor OnExit,
                               EntryRefiner Refine) {
  AnalysisResult Result;
  Result.Outcome = admitFunction(FD, Limits);
  if (!Result.ok())
    return Result;
  llvm::Expected<AdornedCFG> ACFG = AdornedCFG::build(FD);
  if (!ACFG) {
    Result.Outcome = AnalysisOutcome::NoCFG;
    Result.Message = llvm::toString(ACFG.takeError());
    return Result;
  }
  if (exceedsElements(ACFG->getCFG(), Limits)) {
    Result.Outcome = AnalysisOutcome::TooLarge;
    return Result;
  }

  auto Solver = std::make_unique<CDCLSolver>(Limits.MaxSATConflicts);
  DataflowAnalysisContext AnalysisCtx(*Solver);
  Environment Env(AnalysisCtx, FD);
  OriginTable Origins(Ctx.VoidTy);
  ProvenanceModel Model(Ctx, Env, Index, Origins, Others.Summaries);
  DeadValues Dead(ACFG->getCFG(), *FD.getBody());
  Model.setDeadValues(&Dead);
  llvm::DenseMap<const VarDecl *, CapturedTensor> Captured;
  if (const auto *MD = dyn_cast<CXXMethodDecl>(&FD);
      Others.Captures && MD && MD->getParent() && MD->getParent()->isLambda())
    Captured = Others.Captures->facts(*MD, Ctx, Index, Limits);
  if (!Captured.empty() || Refine)
    Model.setEntryRefinement([&](Environment &E) {
      if (Refine)
        Refine(E);
      Arena &A = E.arena();
      for (const auto &[VD, Fact] : Captured) {
        auto *L =
            dyn_cast_or_null<RecordStorageLocation>(E.getStorageLocation(*VD));
        if (!L)
          continue;
        Value *Origin = nullptr;
        if (Fact.Origin)
          Origin = &E.create<PointerValue>(Origins.locationFor(Fact.Origin, E));
        writeTensor(*L, A.makeLiteral(Fact.Plain), A.makeLiteral(true), Origin,
                    E);
      }
    });
  if (OnEntry)
    Model.setEntryHook([&](const Environment &E) { OnEntry(E); });

  CFGEltCallbacksTypeErased Callbacks;
  Callbacks.Before = [&](const CFGElement &Elt,
                         const TypeErasedDataflowAnalysisState &State) {
    Visit(Elt, State.Env, Origins);
  };
  auto States = runTypeErasedDataflowAnalysis(*ACFG, Model, Env, Callbacks,
                                              Limits.MaxBlockVisits);
  Result.SATQueries = Solver->queries();
  Result.SATConflicts = Solver->conflicts();
  if (!States) {
    // The framework reports its block-visit budget as std::errc::timed_out
    // ("maximum number of blocks processed").
    std::error_code Code;
    std::string Message;
    llvm::handleAllErrors(States.takeError(),
                          [&](const llvm::ErrorInfoBase &E) {
                            Code = E.convertToErrorCode();
                            Message = E.message();
                          });
    Result.Outcome = Code == std::errc::timed_out
                         ? AnalysisOutcome::BlockVisitLimit
                         : AnalysisOutcome::OtherError;
    if (Solver->reachedLimit())
      Result.Outcome = AnalysisOutcome::SATLimit;
    Result.Message = std::move(Message);
    return Result;
  }
  if (Solver->reachedLimit()) {
    Result.Outcome = AnalysisOutcome::SATLimit;
    return Result;
  }
  if (OnExit)
    if (const auto &Exit = (*States)[ACFG->getCFG().getExit().getBlockID()])
      OnExit(Exit->Env);
  return Result;
}

} // namespace analysis
} // namespace meshguard
