//===--- SubgroupMembers.cpp - Branches on membership of a subgroup ------===//
//
// The ranks outside a subgroup hold no handle to it (`if (!sub) return;`, or
// they leave before the members build it): a branch on membership lets
// exactly the subgroup's members reach a collective on that subgroup,
// together.
//
//===----------------------------------------------------------------------===//

#include "Divergence/MeshGroups.h"
#include "Divergence/RankFlow.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"

using namespace clang;

namespace meshguard {
namespace analysis {

namespace {

/// The local variable holding the process group a raw collective runs on
/// (`sub->allreduce(...)`, `pg.barrier()`), if any.
const VarDecl *groupVariable(const CallExpr &Call, const FunctionDecl &FD) {
  const auto *MC = dyn_cast<CXXMemberCallExpr>(&Call);
  const Expr *Object = MC ? MC->getImplicitObjectArgument() : nullptr;
  while (Object) {
    Object = Object->IgnoreParenImpCasts();
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Object);
        Op && Op->getNumArgs() >= 1 &&
        (Op->getOperator() == OO_Arrow || Op->getOperator() == OO_Star))
      Object = Op->getArg(0);
    else if (const auto *Deref = dyn_cast<UnaryOperator>(Object);
             Deref && Deref->getOpcode() == UO_Deref)
      Object = Deref->getSubExpr();
    else
      break;
  }
  const auto *DRE = dyn_cast_or_null<DeclRefExpr>(Object);
  const auto *V = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
  if (!V || !V->isLocalVarDecl() || V->isStaticLocal() ||
      V->getParentFunctionOrMethod() != &FD)
    return nullptr;
  return V;
}

bool refersTo(const Stmt *S, const VarDecl *V) {
  if (!S)
    return false;
  if (const auto *DRE = dyn_cast<DeclRefExpr>(S); DRE && DRE->getDecl() == V)
    return true;
  return llvm::any_of(S->children(),
                      [&](const Stmt *C) { return refersTo(C, V); });
}

/// Whether \p V is initialised with a group of its own (a constructor,
/// `make_intrusive`, `splitGroup`), not a copy of another variable's.
bool makesNewGroup(const VarDecl *V) {
  const Expr *Init = V->getInit();
  while (Init) {
    Init = Init->IgnoreImplicit()->IgnoreParens();
    const auto *Construct = dyn_cast<CXXConstructExpr>(Init);
    if (!Construct || Construct->getNumArgs() != 1 ||
        !Construct->getConstructor()->isCopyOrMoveConstructor())
      break;
    Init = Construct->getArg(0);
  }
  return isa_and_nonnull<CallExpr, CXXConstructExpr, CXXNewExpr>(Init);
}

/// The call that built \p V for a list of ranks (`world->splitGroup(ranks)`,
/// `new_group(ranks)`), through copies; null for any other initialiser.
const CallExpr *membershipInit(const VarDecl *V) {
  const Expr *Init = V->getInit();
  while (Init) {
    Init = Init->IgnoreImplicit()->IgnoreParens();
    const auto *Construct = dyn_cast<CXXConstructExpr>(Init);
    if (!Construct || Construct->getNumArgs() != 1)
      break;
    Init = Construct->getArg(0);
  }
  const auto *Call = dyn_cast_or_null<CallExpr>(Init);
  const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
  const IdentifierInfo *Id = Callee ? Callee->getIdentifier() : nullptr;
  if (!Id || Call->getNumArgs() == 0 ||
      !llvm::is_contained({"splitGroup", "split_group", "new_group"},
                          Id->getName()))
    return nullptr;
  return Call;
}

/// Whether \p Cond reads as a membership test of the ranks \p Split was
/// given: it names that list (`std::find(ranks...)`), or it bounds the
/// rank (`rank >= n`: the first n ranks, the usual way to pick members).
bool testsMembership(const Stmt *Terminator, const CallExpr &Split) {
  const auto *Cond = dyn_cast_or_null<Expr>(Terminator);
  if (!Cond)
    return false;
  Cond = Cond->IgnoreParenImpCasts();
  if (const auto *Not = dyn_cast<UnaryOperator>(Cond);
      Not && Not->getOpcode() == UO_LNot)
    Cond = Not->getSubExpr()->IgnoreParenImpCasts();
  if (const auto *Cmp = dyn_cast<BinaryOperator>(Cond);
      Cmp && Cmp->isRelationalOp())
    return true;
  const auto *List = dyn_cast<DeclRefExpr>(Split.getArg(0)->IgnoreImplicit());
  const auto *ListVar = List ? dyn_cast<VarDecl>(List->getDecl()) : nullptr;
  return ListVar && refersTo(Cond, ListVar);

} // namespace

} // namespace

/// Subgroup membership: the ranks outside a subgroup hold no handle to it
/// (`if (!sub) return;`, or they leave before the members build it), so
/// the branch on membership lets exactly the subgroup's members reach a
/// collective on that subgroup, together.
bool membersTogether(CFGBlock *Dep, const CallExpr &Call,
                     const FunctionDecl &FD, RankFlow &Flow) {
  const VarDecl *Group = groupVariable(Call, FD);
  if (!Group)
    return false;
  // The branch tests the group itself (null on non-members).
  if (refersTo(Dep->getTerminatorCondition(), Group))
    return true;
  // Built for a list of ranks, and the branch tests membership of it by
  // the rank (non-members hold null and must not call the collective).
  if (const CallExpr *Split = membershipInit(Group);
      Split && testsMembership(Dep->getTerminatorCondition(), *Split))
    return true;
  // Only the ranks that pass the branch build the group.
  if (!makesNewGroup(Group))
    return false;
  CFGBlock *Declared = Flow.blockDeclaring(Group);
  return Declared && llvm::is_contained(Flow.controllingBlocks(Declared), Dep);
}

} // namespace analysis
} // namespace meshguard
