//===--- TensorOperands.cpp - The tensors an argument passes --------------===//

#include "meshguard/Analysis/Provenance/TensorOperands.h"
#include "meshguard/Analysis/Api/ApiIndex.h"
#include "clang/AST/ExprCXX.h"

using namespace clang;

namespace meshguard {
namespace analysis {

static const Expr *skipWrappers(const Expr *E) {
  while (true) {
    E = E->IgnoreParens();
    if (const auto *C = dyn_cast<ExprWithCleanups>(E))
      E = C->getSubExpr();
    else if (const auto *M = dyn_cast<MaterializeTemporaryExpr>(E))
      E = M->getSubExpr();
    else if (const auto *B = dyn_cast<CXXBindTemporaryExpr>(E))
      E = B->getSubExpr();
    else if (const auto *I = dyn_cast<ImplicitCastExpr>(E);
             I && (I->getCastKind() == CK_NoOp ||
                   I->getCastKind() == CK_ConstructorConversion))
      E = I->getSubExpr();
    else if (const auto *F = dyn_cast<CXXFunctionalCastExpr>(E);
             F && F->getCastKind() == CK_ConstructorConversion)
      E = F->getSubExpr();
    else
      return E;
  }
}

/// The elements of `{a, b}` when \p E is a std::initializer_list made from it.
static bool initializerListElements(const Expr *E, const ApiIndex &Index,
                                    TensorOperands &Out) {
  const auto *StdList = dyn_cast<CXXStdInitializerListExpr>(skipWrappers(E));
  if (!StdList)
    return false;
  const auto *List =
      dyn_cast<InitListExpr>(skipWrappers(StdList->getSubExpr()));
  if (!List)
    return false;
  Out.FromList = true;
  for (const Expr *Init : List->inits())
    Out.Items.push_back({Init, Index.isTensorContainerType(Init->getType())});
  return true;
}

bool listElements(const CXXConstructExpr *Construct, const ApiIndex &Index,
                  TensorOperands &Out) {
  if (!Index.isTensorContainerType(Construct->getType()))
    return false;
  if (Construct->getNumArgs() == 0) {
    // `{}` or a default-constructed container: no tensors.
    Out.FromList = true;
    return true;
  }
  return initializerListElements(Construct->getArg(0), Index, Out);
}

TensorOperands tensorOperands(const Expr *Arg, const ApiIndex &Index) {
  TensorOperands Out;
  if (!Arg)
    return Out;
  const Expr *E = skipWrappers(Arg);
  if (initializerListElements(E, Index, Out))
    return Out;
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(E))
    if (listElements(Construct, Index, Out))
      return Out;
  if (Index.isTensorType(Arg->getType()))
    Out.Items.push_back({Arg, false});
  else if (Index.isTensorContainerType(Arg->getType()))
    Out.Items.push_back({Arg, true});
  return Out;
}

llvm::ArrayRef<const Expr *> parameterArguments(const CallExpr &Call) {
  llvm::ArrayRef<const Expr *> Args(Call.getArgs(), Call.getNumArgs());
  if (isa<CXXOperatorCallExpr>(Call) &&
      isa_and_nonnull<CXXMethodDecl>(Call.getDirectCallee()))
    return Args.drop_front();
  return Args;
}

const Expr *objectArgument(const CallExpr &Call) {
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call))
    return Member->getImplicitObjectArgument();
  const auto *MD = dyn_cast_or_null<CXXMethodDecl>(Call.getDirectCallee());
  if (isa<CXXOperatorCallExpr>(Call) && MD && !MD->isStatic() &&
      Call.getNumArgs() > 0)
    return Call.getArg(0);
  return nullptr;
}

const Expr *copySource(const Expr *E) {
  const auto *Construct = dyn_cast_or_null<CXXConstructExpr>(E);
  const CXXConstructorDecl *Ctor =
      Construct ? Construct->getConstructor() : nullptr;
  if (!Ctor || !Ctor->isCopyOrMoveConstructor() || Construct->getNumArgs() == 0)
    return nullptr;
  return Construct->getArg(0);
}

} // namespace analysis
} // namespace meshguard
