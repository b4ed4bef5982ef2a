//===--- ModuleNavigation.cpp - From an expression to the modules it names ===//

#include "meshguard/Analysis/Provenance/ModuleNavigation.h"
#include "meshguard/Analysis/Api/ApiIndex.h"
#include "meshguard/Analysis/Provenance/TensorState.h"
#include "clang/AST/ExprCXX.h"

using namespace clang;
using namespace clang::dataflow;

namespace meshguard {
namespace analysis {

/// Steps through `*holder` and `holder->` to the holder.
/// `*holder`, `holder->`, `holder.get()`, `holder.ptr()` (and `*` of a raw
/// pointer) reach the holder's module.
static const Expr *throughHolderAccess(const Expr *E) {
  E = E->IgnoreParenImpCasts();
  while (true) {
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E);
        Op && (Op->getOperator() == OO_Star || Op->getOperator() == OO_Arrow) &&
        Op->getNumArgs() == 1) {
      E = Op->getArg(0)->IgnoreParenImpCasts();
      continue;
    }
    if (const auto *Member = dyn_cast<CXXMemberCallExpr>(E);
        Member && Member->getNumArgs() == 0 && Member->getMethodDecl() &&
        Member->getMethodDecl()->getDeclName().isIdentifier() &&
        (Member->getMethodDecl()->getName() == "get" ||
         Member->getMethodDecl()->getName() == "ptr")) {
      E = Member->getImplicitObjectArgument()->IgnoreParenImpCasts();
      continue;
    }
    if (const auto *U = dyn_cast<UnaryOperator>(E);
        U && U->getOpcode() == UO_Deref) {
      E = U->getSubExpr()->IgnoreParenImpCasts();
      continue;
    }
    return E;
  }
}

llvm::SmallVector<RecordStorageLocation *, 4>
modulesAlong(const Expr *E, const Environment &Env, const ApiIndex &Index) {
  llvm::SmallVector<RecordStorageLocation *, 4> Chain;
  while (E) {
    E = throughHolderAccess(E);
    if (Index.isModuleType(E->getType()))
      if (RecordStorageLocation *L = recordLocation(E, Env);
          L && !llvm::is_contained(Chain, L))
        Chain.push_back(L);
    // A raw pointer to a module (`Model *m` in `m->parameters()`): the
    // module it points to.
    if (const auto *Ptr = E->getType()->getAs<PointerType>();
        Ptr && Index.isModuleType(Ptr->getPointeeType()))
      if (auto *P = Env.get<PointerValue>(*E))
        if (auto *L = dyn_cast<RecordStorageLocation>(&P->getPointeeLoc());
            L && !llvm::is_contained(Chain, L))
          Chain.push_back(L);
    const auto *Member = dyn_cast<MemberExpr>(E);
    E = Member ? Member->getBase() : nullptr;
  }
  return Chain;
}

const VarDecl *moduleVariable(const Expr *E, const ApiIndex &Index) {
  const auto *Ref = dyn_cast<DeclRefExpr>(throughHolderAccess(E));
  const auto *VD = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  return VD && Index.isModuleType(VD->getType()) ? VD : nullptr;
}

} // namespace analysis
} // namespace meshguard
