//===--- CallableTargets.cpp - The lambda a callable surely holds ---------===//

#include "meshguard/Analysis/Provenance/CallableTargets.h"
#include "Provenance/VariableWrites.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/IgnoreExpr.h"

using namespace clang;

namespace meshguard {
namespace analysis {

bool isStdFunction(const CXXRecordDecl *RD) {
  return RD && RD->isInStdNamespace() && RD->getDeclName().isIdentifier() &&
         RD->getName() == "function";
}

bool isStdFunctionType(QualType T) {
  return isStdFunction(T.getNonReferenceType()->getAsCXXRecordDecl());
}

static bool isClosureType(QualType T) {
  const auto *RD = T.getNonReferenceType()->getAsCXXRecordDecl();
  return RD && RD->isLambda();
}

const LambdaExpr *
CallableTargets::heldLambda(const Expr *E,
                            llvm::ArrayRef<CallableBinding> Bound) {
  return heldLambda(E, Bound, 0);
}

const LambdaExpr *CallableTargets::heldLambda(
    const Expr *E, llvm::ArrayRef<CallableBinding> Bound, unsigned Depth) {
  // `auto g = f; auto h = g;` chains are short; the bound keeps a cycle of
  // initialisers (ill-formed, but parsed) from looping.
  constexpr unsigned MaxDepth = 8;
  while (E && Depth < MaxDepth) {
    // Parentheses, implicit casts, temporaries and cleanups.
    E = IgnoreExprNodes(E, IgnoreImplicitSingleStep, IgnoreParensSingleStep);
    if (const auto *L = dyn_cast<LambdaExpr>(E))
      return L->isGenericLambda() ? nullptr : L;
    if (const auto *F = dyn_cast<CXXFunctionalCastExpr>(E))
      E = F->getSubExpr();
    else if (const auto *Construct = dyn_cast<CXXConstructExpr>(E)) {
      // std::function's converting constructor from the lambda, or a copy
      // of a closure or a std::function.
      if (Construct->getNumArgs() != 1 ||
          !(isStdFunctionType(Construct->getType()) ||
            isClosureType(Construct->getType())))
        return nullptr;
      E = Construct->getArg(0);
    } else if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
      if (const auto *P = dyn_cast<ParmVarDecl>(Ref->getDecl())) {
        for (const CallableBinding &B : Bound)
          if (B.Param == P)
            return B.Lambda;
        return nullptr;
      }
      // A closure's type names its lambda, whatever happens to the
      // variable; a std::function may be given another target.
      const auto *VD = dyn_cast<VarDecl>(Ref->getDecl());
      if (!VD || !VD->isLocalVarDecl() || !VD->getInit() ||
          VD->getType()->isReferenceType() ||
          !(isClosureType(VD->getType()) ||
            (isStdFunctionType(VD->getType()) && neverChanged(*VD))))
        return nullptr;
      E = VD->getInit();
      ++Depth;
    } else {
      return nullptr;
    }
  }
  return nullptr;
}

bool CallableTargets::neverChanged(const VarDecl &VD) {
  if (auto It = Unchanged.find(&VD); It != Unchanged.end())
    return It->second;
  const auto *FD = dyn_cast<FunctionDecl>(VD.getDeclContext());
  const Stmt *Body = FD ? FD->getBody() : nullptr;
  bool Result = false;
  if (Body) {
    std::unique_ptr<ParentMap> &PM = Parents[Body];
    if (!PM)
      PM = std::make_unique<ParentMap>(const_cast<Stmt *>(Body));
    llvm::DenseSet<const VarDecl *> Vars{&VD};
    llvm::DenseMap<const VarDecl *, VariableWrites> Writes =
        findVariableWrites(*Body, Vars, *PM);
    auto W = Writes.find(&VD);
    Result = W == Writes.end() || (W->second.PointWrites.empty() &&
                                   !W->second.InLambda && !W->second.Escapes);
  }
  Unchanged[&VD] = Result;
  return Result;
}

} // namespace analysis
} // namespace meshguard
