//===--- LoopVariableWrites.cpp - May a range-for variable be rebound? ----===//

#include "meshguard/Analysis/LoopVariableWrites.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"

using namespace clang;

namespace meshguard {
namespace analysis {

namespace {

bool refersTo(const Expr *E, const VarDecl &VD) {
  const auto *Ref = E ? dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts()) : nullptr;
  return Ref && Ref->getDecl() == &VD;
}

bool isNonConstLValueRef(QualType T) {
  return T->isLValueReferenceType() &&
         !T.getNonReferenceType().isConstQualified();
}

/// Looks for a write that may rebind \p Var in one loop body.
class RebindFinder : public RecursiveASTVisitor<RebindFinder> {
public:
  explicit RebindFinder(const VarDecl &Var) : Var(Var) {}

  bool VisitCallExpr(CallExpr *Call) {
    const FunctionDecl *FD = Call->getDirectCallee();
    unsigned Shift = 0;
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call)) {
      if (Op->getOperator() == OO_Equal && Op->getNumArgs() == 2 &&
          refersTo(Op->getArg(0), Var))
        return found();
      // Other operators on the tensor itself (`p += x`) are in-place ops.
      if (isa_and_nonnull<CXXMethodDecl>(FD))
        Shift = 1;
    }
    for (unsigned I = Shift, N = Call->getNumArgs(); I < N; ++I) {
      if (!refersTo(Call->getArg(I), Var))
        continue;
      // An indirect call could take it by reference.
      unsigned P = I - Shift;
      if (!FD || (P < FD->getNumParams() &&
                  isNonConstLValueRef(FD->getParamDecl(P)->getType())))
        return found();
    }
    return true;
  }

  bool VisitVarDecl(VarDecl *VD) {
    if ((isNonConstLValueRef(VD->getType()) ||
         VD->getType()->isPointerType()) &&
        refersTo(VD->getInit(), Var))
      return found();
    return true;
  }

  bool VisitUnaryOperator(UnaryOperator *U) {
    if (U->getOpcode() == UO_AddrOf && refersTo(U->getSubExpr(), Var))
      return found();
    return true;
  }

  bool VisitLambdaExpr(LambdaExpr *Lambda) {
    for (const LambdaCapture &Capture : Lambda->captures())
      if (Capture.capturesVariable() &&
          Capture.getCaptureKind() == LCK_ByRef &&
          Capture.getCapturedVar() == &Var)
        return found();
    return true;
  }

  bool Found = false;

private:
  bool found() {
    Found = true;
    return false; // Stop the traversal.
  }

  const VarDecl &Var;
};

/// Decides every range-for loop of a function in one walk.
class LoopFinder : public RecursiveASTVisitor<LoopFinder> {
public:
  explicit LoopFinder(llvm::DenseMap<const VarDecl *, bool> &Rebinds)
      : Rebinds(Rebinds) {}
  bool VisitCXXForRangeStmt(CXXForRangeStmt *S) {
    if (const VarDecl *Var = S->getLoopVariable()) {
      RebindFinder Writes(*Var);
      Writes.TraverseStmt(S->getBody());
      Rebinds[Var] = Writes.Found;
    }
    return true;
  }

private:
  llvm::DenseMap<const VarDecl *, bool> &Rebinds;
};

} // namespace

bool LoopVariableWrites::mayRebind(const VarDecl &LoopVar) {
  auto It = Cache.find(&LoopVar);
  if (It != Cache.end())
    return It->second;
  const auto *FD = dyn_cast<FunctionDecl>(LoopVar.getDeclContext());
  if (!FD || !FD->getBody() || !Walked.insert(FD).second)
    return true;
  LoopFinder Loops(Cache);
  Loops.TraverseStmt(FD->getBody());
  It = Cache.find(&LoopVar);
  return It == Cache.end() || It->second;
}

} // namespace analysis
} // namespace meshguard
