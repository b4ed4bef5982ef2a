//===--- MixedOpSites.cpp - Tensor ops mixing DTensors and plain tensors --===//

#include "meshguard/Analysis/MixedOpSites.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/DenseSet.h"

using namespace clang;
using namespace clang::dataflow;

namespace meshguard {
namespace analysis {

/// The tensor operands of \p Call if it is a tensor op, else empty.
static llvm::SmallVector<const Expr *, 4> opOperands(const CallExpr *Call,
                                                     const ApiIndex &Index) {
  llvm::SmallVector<const Expr *, 4> Operands;
  const FunctionDecl *FD = Call->getDirectCallee();
  if (!FD || !Index.isTensorType(Call->getType()) || Index.source(FD))
    return Operands;
  bool IsOp = Index.isOpFunction(FD);
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call)) {
    const Expr *Obj = Member->getImplicitObjectArgument();
    if (!Obj || !Index.isTensorType(Obj->getType()))
      return Operands;
    IsOp = true;
    Operands.push_back(Obj);
  }
  if (!IsOp)
    return {};
  if (const auto *MD = dyn_cast<CXXMethodDecl>(FD);
      MD && (MD->isCopyAssignmentOperator() || MD->isMoveAssignmentOperator()))
    return {};
  for (const Expr *Arg : Call->arguments())
    if (Index.isTensorType(Arg->getType()))
      Operands.push_back(Arg);
  return Operands;
}

MixedOpScan scanMixedOps(const FunctionDecl &FD, ASTContext &Ctx,
                         const ApiIndex &Index, const AnalysisLimits &Limits) {
  MixedOpScan Scan;
  llvm::SmallVector<const VarDecl *, 8> TensorVars = tensorVariables(FD, Index);
  llvm::DenseSet<const CallExpr *> Seen;
  auto Visit = [&](const CFGElement &Elt, const Environment &Env,
                   const OriginTable &Origins) {
    const CallExpr *Call = firstVisitOfCall(Elt, Seen);
    if (!Call)
      return;
    llvm::SmallVector<const Expr *, 4> Operands = opOperands(Call, Index);
    if (Operands.size() < 2)
      return;
    std::optional<OperandFact> DT;
    llvm::SmallVector<OperandFact, 2> Plain;
    for (const Expr *E : Operands) {
      std::optional<OperandReading> R = readOperand({E, false}, Env, Origins);
      if (!R)
        continue;
      if (R->Fact.P == Provenance::DTensor && !DT)
        DT = R->Fact;
      else if (R->Fact.P == Provenance::Plain)
        Plain.push_back(R->Fact);
    }
    if (!DT || Plain.empty())
      return;
    Scan.Sites.push_back(
        {Call, *DT, std::move(Plain), dtensorVariables(TensorVars, Env)});
  };
  Scan.Result = analyzeFunction(FD, Ctx, Index, Limits, Visit);
  if (!Scan.Result.ok())
    Scan.Sites.clear();
  return Scan;
}

} // namespace analysis
} // namespace meshguard
