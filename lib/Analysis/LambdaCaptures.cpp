//===--- LambdaCaptures.cpp - Provenance a lambda's captures carry --------===//

#include "meshguard/Analysis/LambdaCaptures.h"
#include "meshguard/Analysis/Provenance.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/LambdaCapture.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Analysis/Analyses/ExprMutationAnalyzer.h"

using namespace clang;
using namespace clang::dataflow;

namespace meshguard {
namespace analysis {

namespace {
class LambdaFinder : public RecursiveASTVisitor<LambdaFinder> {
public:
  explicit LambdaFinder(const CXXRecordDecl *Closure) : Closure(Closure) {}
  bool VisitLambdaExpr(LambdaExpr *E) {
    if (E->getLambdaClass() != Closure)
      return true;
    Found = E;
    return false;
  }
  const CXXRecordDecl *Closure;
  const LambdaExpr *Found = nullptr;
};
} // namespace

const LambdaExpr *lambdaExprOf(const CXXRecordDecl &Closure) {
  const auto *Enclosing = dyn_cast<FunctionDecl>(Closure.getDeclContext());
  if (!Closure.isLambda() || !Enclosing || !Enclosing->getBody())
    return nullptr;
  LambdaFinder Finder(&Closure);
  Finder.TraverseStmt(Enclosing->getBody());
  return Finder.Found;
}

llvm::DenseMap<const VarDecl *, CapturedTensor>
capturedTensorFacts(const CXXMethodDecl &CallOperator, ASTContext &Ctx,
                    const ApiIndex &Index, const AnalysisLimits &Limits) {
  llvm::DenseMap<const VarDecl *, CapturedTensor> Facts;
  const CXXRecordDecl *Closure = CallOperator.getParent();
  const LambdaExpr *Lambda = Closure ? lambdaExprOf(*Closure) : nullptr;
  if (!Lambda)
    return Facts;
  const auto *Enclosing = cast<FunctionDecl>(Closure->getDeclContext());

  // Captures whose value at creation is their value when the lambda runs.
  llvm::SmallVector<const VarDecl *, 4> Stable;
  ExprMutationAnalyzer Mutations(*Enclosing->getBody(), Ctx);
  for (const LambdaCapture &Capture : Lambda->captures()) {
    if (!Capture.capturesVariable())
      continue;
    const auto *VD = dyn_cast<VarDecl>(Capture.getCapturedVar());
    if (!VD || !Index.isTensorType(VD->getType()) ||
        VD->getType()->isReferenceType())
      continue;
    if (Capture.getCaptureKind() == LCK_ByRef && Mutations.isMutated(VD))
      continue;
    Stable.push_back(VD);
  }
  if (Stable.empty())
    return Facts;

  auto Visit = [&](const CFGElement &Elt, const Environment &Env,
                   const OriginTable &Origins) {
    auto S = Elt.getAs<CFGStmt>();
    if (!S || S->getStmt() != Lambda)
      return;
    for (const VarDecl *VD : Stable) {
      auto *L = dyn_cast_or_null<RecordStorageLocation>(
          Env.getStorageLocation(*VD));
      if (!L)
        continue;
      TensorFacts F = readTensor(*L, Env, &Origins);
      Provenance P = classify(F, Env);
      if (P == Provenance::Plain || P == Provenance::DTensor)
        Facts[VD] = {P == Provenance::Plain, F.Origin};
    }
  };
  AnalysisResult Result =
      analyzeFunction(*Enclosing, Ctx, Index, Limits, Visit);
  if (!Result.ok())
    Facts.clear();
  return Facts;
}

} // namespace analysis
} // namespace meshguard
