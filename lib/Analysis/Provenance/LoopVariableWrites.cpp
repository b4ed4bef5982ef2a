//===--- LoopVariableWrites.cpp - May a range-for variable be rebound? ----===//

#include "Provenance/LoopVariableWrites.h"
#include "meshguard/Analysis/Provenance/TensorOperands.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"

using namespace clang;

namespace meshguard {
namespace analysis {

namespace {

/// Whether \p E is \p VD or, for an OrderedDict item, the tensor it holds
/// (`item.value()`, `*item`, `item.operator->()`): a write to either rebinds
/// the tensor the loop variable stands for.
bool refersTo(const Expr *E, const VarDecl &VD) {
  if (!E)
    return false;
  E = E->IgnoreParenImpCasts();
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(E);
      Member && Member->getNumArgs() == 0 && Member->getMethodDecl() &&
      Member->getMethodDecl()->getDeclName().isIdentifier() &&
      Member->getMethodDecl()->getName() == "value")
    return refersTo(Member->getImplicitObjectArgument(), VD);
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E);
      Op && Op->getNumArgs() == 1 &&
      (Op->getOperator() == OO_Star || Op->getOperator() == OO_Arrow))
    return refersTo(Op->getArg(0), VD);
  const auto *Ref = dyn_cast<DeclRefExpr>(E);
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
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call);
        Op && Op->getOperator() == OO_Equal && Op->getNumArgs() == 2 &&
        refersTo(Op->getArg(0), Var))
      return found();
    // Other operators on the tensor itself (`p += x`) are in-place ops: the
    // object is not among the parameter arguments.
    llvm::ArrayRef<const Expr *> Args = parameterArguments(*Call);
    for (unsigned P = 0; P < Args.size(); ++P) {
      if (!refersTo(Args[P], Var))
        continue;
      // An indirect call could take it by reference.
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
      if (Capture.capturesVariable() && Capture.getCaptureKind() == LCK_ByRef &&
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
