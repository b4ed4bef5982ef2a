//===--- RankFlow.cpp - Rank dependence over one function's CFG -----------===//

#include "Divergence/RankFlow.h"
#include "clang/AST/StmtCXX.h"
#include "llvm/ADT/SmallPtrSet.h"
#include <functional>

using namespace clang;

namespace meshguard {
namespace analysis {

namespace {
/// Control dependencies cost a post-dominance frontier per block: implicit
/// flows are followed in functions up to this size only.
constexpr unsigned MaxBlocksForImplicitFlow = 400;
} // namespace

RankFlow::RankFlow(const FunctionDecl &FD, CFG &Cfg, RankDependenceTU &Facts,
                   llvm::ArrayRef<const Expr *> ParameterMarks)
    : FD(FD), Cfg(Cfg), Facts(Facts), ParameterMarks(ParameterMarks),
      Deps(&Cfg), Implicit(Cfg.getNumBlockIDs(), nullptr), Fix(Cfg, *this) {}

const llvm::SmallVector<CFGBlock *, 8> &
RankFlow::controllingBlocks(CFGBlock *B) {
  auto It = DepCache.find(B);
  if (It != DepCache.end())
    return It->second;
  llvm::SmallVector<CFGBlock *, 8> Work(Deps.getControlDependencies(B).begin(),
                                        Deps.getControlDependencies(B).end());
  llvm::SmallPtrSet<CFGBlock *, 16> Seen(Work.begin(), Work.end());
  for (unsigned I = 0; I < Work.size(); ++I)
    for (CFGBlock *Next : Deps.getControlDependencies(Work[I]))
      if (Seen.insert(Next).second)
        Work.push_back(Next);
  return DepCache[B] = std::move(Work);
}

/// A range `for` over tensors (a module's parameters, a list of gradients,
/// `named_parameters()`): as many on every rank. Their values differ per
/// rank, not their number.
static bool overTensors(const CFGBlock *B) {
  const auto *For = dyn_cast_or_null<CXXForRangeStmt>(B->getTerminatorStmt());
  const VarDecl *V = For ? For->getLoopVariable() : nullptr;
  const CXXRecordDecl *RD =
      V ? V->getType().getNonReferenceType()->getAsCXXRecordDecl() : nullptr;
  if (!RD)
    return false;
  std::string Name = RD->getQualifiedNameAsString();
  return Name == "at::Tensor" ||
         (llvm::StringRef(Name).starts_with("torch::OrderedDict<") &&
          llvm::StringRef(Name).ends_with("::Item"));
}

/// The process group whose \p Method (getRank, getSize) \p E calls,
/// directly or through a const local initialised with that call.
static const ValueDecl *groupQuery(const Expr *E, llvm::StringRef Method) {
  E = E->IgnoreParenImpCasts();
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
    if (const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
        V && V->getType().isConstQualified() && V->getInit())
      E = V->getInit()->IgnoreParenImpCasts();
  const auto *MC = dyn_cast<CXXMemberCallExpr>(E);
  const CXXMethodDecl *MD = MC ? MC->getMethodDecl() : nullptr;
  if (!MD || !MD->getIdentifier() || MD->getName() != Method)
    return nullptr;
  const Expr *Object = MC->getImplicitObjectArgument()->IgnoreParenImpCasts();
  if (const auto *Arrow = dyn_cast<CXXOperatorCallExpr>(Object);
      Arrow && Arrow->getOperator() == OO_Arrow && Arrow->getNumArgs() == 1)
    Object = Arrow->getArg(0)->IgnoreParenImpCasts();
  const auto *DRE = dyn_cast<DeclRefExpr>(Object);
  return DRE ? DRE->getDecl() : nullptr;
}

/// A rank condition that holds on every rank: `rank < size` and `size >
/// rank` of one process group, `rank >= 0` (MBI's `rank < nprocs` guards).
static bool holdsOnEveryRank(const Expr *Cond, ASTContext &Ctx) {
  const auto *BO = dyn_cast<BinaryOperator>(Cond->IgnoreParenImpCasts());
  if (!BO)
    return false;
  const Expr *L = BO->getLHS(), *R = BO->getRHS();
  auto Zero = [&](const Expr *E) {
    std::optional<llvm::APSInt> K = E->getIntegerConstantExpr(Ctx);
    return K && K->isZero();
  };
  const ValueDecl *Rank = nullptr;
  switch (BO->getOpcode()) {
  case BO_LT:
    Rank = groupQuery(L, "getRank");
    return Rank && Rank == groupQuery(R, "getSize");
  case BO_GT:
    Rank = groupQuery(R, "getRank");
    return Rank && Rank == groupQuery(L, "getSize");
  case BO_GE:
    return groupQuery(L, "getRank") && Zero(R);
  case BO_LE:
    return Zero(L) && groupQuery(R, "getRank");
  default:
    return false;
  }
}

const Expr *RankFlow::conditionOrigin(const CFGBlock *B) const {
  const auto *Cond = dyn_cast_or_null<Expr>(
      const_cast<CFGBlock *>(B)->getTerminatorCondition());
  if (!Cond || !Fix.reached(*B) || overTensors(B) ||
      holdsOnEveryRank(Cond, FD.getASTContext()))
    return nullptr;
  return Facts.origin(Cond, Fix.out(*B), &FD);
}

const Expr *RankFlow::conditionOriginBesides(const CFGBlock *B,
                                             const Expr *Source) const {
  const auto *Cond = dyn_cast_or_null<Expr>(
      const_cast<CFGBlock *>(B)->getTerminatorCondition());
  if (!Cond || !Fix.reached(*B) || overTensors(B) ||
      holdsOnEveryRank(Cond, FD.getASTContext()))
    return nullptr;
  const RankVars &Vars = Fix.out(*B);
  std::function<const Expr *(const Expr *)> Other =
      [&](const Expr *E) -> const Expr * {
    E = E->IgnoreParenImpCasts();
    if (isa<BinaryOperator, UnaryOperator, ConditionalOperator>(E)) {
      for (const Stmt *Child : E->children())
        if (const auto *CE = dyn_cast_or_null<Expr>(Child))
          if (const Expr *O = Other(CE))
            return O;
      return nullptr;
    }
    const Expr *O = Facts.origin(E, Vars, &FD);
    return O == Source ? nullptr : O;
  };
  return Other(Cond);
}

const Expr *RankFlow::implicitOrigin(CFGBlock *B) {
  if (Cfg.getNumBlockIDs() > MaxBlocksForImplicitFlow)
    return nullptr;
  for (CFGBlock *Dep : controllingBlocks(B))
    if (const Expr *O = conditionOrigin(Dep))
      return O;
  return nullptr;
}

bool RankFlow::solve(const AnalysisLimits &Limits) { return Fix.solve(Limits); }

RankVars RankFlow::entryState() const {
  RankVars Vars;
  for (unsigned I = 0; I < ParameterMarks.size(); ++I)
    Vars[RankPlace{FD.getParamDecl(I)}] = ParameterMarks[I];
  return Vars;
}

void RankFlow::enterBlock(const CFGBlock &B) {
  Implicit[B.getBlockID()] = implicitOrigin(const_cast<CFGBlock *>(&B));
}

bool RankFlow::same(const RankVars &Old, const RankVars &New) const {
  return Old.size() == New.size() &&
         llvm::all_of(New, [&](const auto &KV) { return Old.count(KV.first); });
}

CFGBlock *RankFlow::blockDeclaring(const VarDecl *V) const {
  for (CFGBlock *B : Cfg)
    for (const CFGElement &E : *B)
      if (std::optional<CFGStmt> CS = E.getAs<CFGStmt>())
        if (const auto *DS = dyn_cast<DeclStmt>(CS->getStmt()))
          if (llvm::is_contained(DS->decls(), V))
            return B;
  return nullptr;
}

const Expr *RankFlow::originBefore(const Expr *E, const CFGBlock *B,
                                   const Stmt *At) const {
  if (!Fix.reached(*B))
    return nullptr;
  RankVars Vars =
      Fix.replay(*B, [&](const Stmt *S, const RankVars &) { return S != At; });
  return Facts.origin(E, Vars, &FD);
}

} // namespace analysis
} // namespace meshguard
