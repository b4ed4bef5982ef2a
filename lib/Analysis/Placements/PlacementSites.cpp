//===--- PlacementSites.cpp - What the checks find at a call --------------===//
//
// Given the placement facts before a call: a share of a Partial value used
// as the value, an op without a sharding rule on a maybe-sharded DTensor,
// DTensors of different meshes in one op or list, a shard's local tensor
// wrapped as a replica (ReplicaSources.cpp: the candidates the rank analysis
// is asked about).
//
//===----------------------------------------------------------------------===//

#include "Placements/PlacementSites.h"
#include "Placements/ModuleFacts.h"
#include "Placements/OperatorRules.h"
#include "meshguard/Analysis/Api/DeclaredNames.h"
#include "meshguard/Analysis/Provenance/TensorOperands.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Basic/SourceManager.h"

using namespace clang;

namespace meshguard {
namespace analysis {

void partialLocalUsesAt(const Stmt *S, const PlacementVars &Vars,
                        const PlacementTransfer &T,
                        llvm::SmallVectorImpl<FoundUse> &Out) {
  const auto *Call = dyn_cast<CallExpr>(S);
  if (!Call)
    return;
  auto PartialLocal = [&](const Expr *E) -> std::optional<PlacementState> {
    std::optional<PlacementState> F = T.evaluate(E, Vars);
    if (F && F->isPartialLocal())
      return F;
    return std::nullopt;
  };
  auto Add = [&](FullUseKind Kind, std::string What, const PlacementState &V,
                 NotePlace Inner = {}) {
    PartialLocalUse U;
    U.Use = Call;
    U.Kind = Kind;
    U.What = std::move(What);
    U.ToLocal = V.ToLocal;
    U.PartialOrigin = V.PartialOrigin;
    U.InnerUse = Inner;
    U.OfShard = V.FromShard;
    Out.push_back({U, V});
  };
  const ApiIndex &Index = T.index();
  const FunctionDecl *FD = Call->getDirectCallee();
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call)) {
    const CXXMethodDecl *MD = MC->getMethodDecl();
    const Expr *Object = MC->getImplicitObjectArgument();
    if (MD && MD->getIdentifier() && MD->getName() == "item" && Object &&
        Index.isTensorType(Object->getType()))
      if (std::optional<PlacementState> V = PartialLocal(Object))
        return Add(FullUseKind::Item, "item()", *V);
  }
  if (std::optional<TensorOpCall> Op = readTensorOp(*Call, Index)) {
    const OperatorRule *Rule = findOperatorRule(Op->Name);
    bool NonLinear =
        Rule && (Rule->Policy == ShardedPolicy::Refused ||
                 (Rule->Policy == ShardedPolicy::Rule && !Rule->KeepsPartial));
    if (!NonLinear)
      return;
    std::optional<PlacementState> Local;
    for (const Expr *Operand : Op->Operands) {
      std::optional<PlacementState> F = T.evaluate(Operand, Vars);
      if (F && F->isDTensor())
        return; // a DTensor op: the runtime sees the operands' placements
      if (F && F->isPartialLocal() && !Local)
        Local = F;
    }
    if (Local)
      Add(FullUseKind::NonLinearOp, "aten::" + Op->Name, *Local);
    return;
  }
  if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(Call);
      OC && OC->getOperator() == OO_LessLess && OC->getNumArgs() == 2 &&
      !Index.isTensorType(OC->getArg(0)->getType())) {
    if (std::optional<PlacementState> V = PartialLocal(OC->getArg(1)))
      Add(FullUseKind::Printed, "", *V);
    return;
  }
  if (!FD)
    return;
  if (FD->getQualifiedNameAsString() == "torch::save") {
    for (const Expr *Arg : Call->arguments())
      if (std::optional<PlacementState> V = PartialLocal(Arg))
        return Add(FullUseKind::Saved, "", *V);
    return;
  }
  const HelperPlacements *H = T.helperOf(*FD);
  if (!H)
    return;
  // Through a helper: the argument of a parameter it uses as full.
  llvm::ArrayRef<const Expr *> Args = parameterArguments(*Call);
  for (unsigned I = 0; I < H->FullUseOfParam.size() && I < Args.size(); ++I)
    if (H->FullUseOfParam[I])
      if (std::optional<PlacementState> V = PartialLocal(Args[I]))
        return Add(FullUseKind::Helper, FD->getNameAsString(), *V,
                   H->FullUseOfParam[I]);
}

std::optional<UnruledOp> unruledOpAt(const Stmt *S, const PlacementVars &Vars,
                                     const PlacementTransfer &T) {
  const auto *Call = dyn_cast<CallExpr>(S);
  std::optional<TensorOpCall> Op =
      Call ? readTensorOp(*Call, T.index()) : std::nullopt;
  if (!Op)
    return std::nullopt;
  const OperatorRule *Rule = findOperatorRule(Op->Name);
  if (!Rule || Rule->Policy != ShardedPolicy::Refused)
    return std::nullopt;
  UnruledOp U;
  U.Call = Call;
  U.Name = "aten::" + Op->Name;
  bool First = true;
  for (const Expr *Operand : Op->Operands) {
    std::optional<PlacementState> F = T.evaluate(Operand, Vars);
    if (!F || !F->maySplit())
      continue;
    U.Operands.push_back(Operand);
    U.MayPartial |= F->MayPartial;
    if (!U.PlacedAt)
      U.PlacedAt = F->PlacedAt;
    U.MeshDims = First || U.MeshDims == F->MeshDims ? F->MeshDims : 0;
    First = false;
  }
  if (U.Operands.empty())
    return std::nullopt;
  return U;
}

/// The tensors of a braced list argument (`{a, b}`, as a std::vector or an
/// ArrayRef), or none.
static llvm::SmallVector<const Expr *, 4> listedTensors(const Expr *Arg,
                                                        const ApiIndex &Index) {
  llvm::SmallVector<const Expr *, 4> Out;
  TensorOperands Operands = tensorOperands(Arg, Index);
  if (Operands.FromList)
    for (const TensorOperand &Item : Operands.Items)
      if (!Item.IsContainer)
        Out.push_back(Item.E);
  return Out;
}

/// The first two of \p Facts (an expression and its DTensor's placements)
/// surely on different meshes.
static std::optional<MixedMeshSite> firstOnDifferentMeshes(
    llvm::ArrayRef<std::pair<const Expr *, PlacementState>> Facts,
    const PlacementTransfer &T, ASTContext &Ctx) {
  for (unsigned I = 0; I < Facts.size(); ++I)
    for (unsigned J = I + 1; J < Facts.size(); ++J)
      if (surelyDifferentMeshes(Facts[I].second, Facts[J].second, T.index(),
                                Ctx)) {
        MixedMeshSite Site;
        Site.First = Facts[I].first;
        Site.Second = Facts[J].first;
        Site.FirstMesh = describeMesh(Facts[I].second, T.index(), Ctx);
        Site.SecondMesh = describeMesh(Facts[J].second, T.index(), Ctx);
        Site.FirstAt = Facts[I].second.MeshAt;
        Site.SecondAt = Facts[J].second.MeshAt;
        return Site;
      }
  return std::nullopt;
}

/// The first two of \p Operands whose meshes surely differ.
static std::optional<MixedMeshSite>
differentMeshes(llvm::ArrayRef<const Expr *> Operands,
                const PlacementVars &Vars, const PlacementTransfer &T,
                ASTContext &Ctx) {
  llvm::SmallVector<std::pair<const Expr *, PlacementState>, 4> Facts;
  for (const Expr *Operand : Operands)
    if (std::optional<PlacementState> F = T.evaluate(Operand, Vars);
        F && F->isDTensor())
      Facts.push_back({Operand, *F});
  return firstOnDifferentMeshes(Facts, T, Ctx);
}

/// The module whose parameters() \p E is (`m->parameters()`), or null.
static const Expr *parametersOf(const Expr *E) {
  const auto *MC = dyn_cast_or_null<CXXMemberCallExpr>(stripCopies(E));
  const CXXMethodDecl *MD = MC ? MC->getMethodDecl() : nullptr;
  if (!MD || !MD->getIdentifier() || MD->getName() != "parameters" ||
      MD->getParent()->getQualifiedNameAsString() != "torch::nn::Module")
    return nullptr;
  // `m->parameters()`: the module is `m`, not `m->`.
  const Expr *Object = MC->getImplicitObjectArgument()->IgnoreParenImpCasts();
  if (const auto *Arrow = dyn_cast<CXXOperatorCallExpr>(Object);
      Arrow && Arrow->getOperator() == OO_Arrow && Arrow->getNumArgs() == 1)
    return Arrow->getArg(0);
  return Object;
}

/// The modules whose parameters the local vector \p V is built from, as
/// its function writes it: its initialiser `a->parameters()`, and
/// `V.push_back(p)` (`emplace_back`) of the variable of a range `for` over
/// `b->parameters()`. Flow-insensitive: each as written, anywhere.
static llvm::SmallVector<const Expr *, 2> listedModules(const VarDecl &V) {
  llvm::SmallVector<const Expr *, 2> Out;
  const auto *FD =
      dyn_cast_or_null<FunctionDecl>(V.getParentFunctionOrMethod());
  if (!FD || !FD->getBody() || isa<ParmVarDecl>(V))
    return Out;
  if (const Expr *M = parametersOf(V.getInit()))
    Out.push_back(M);
  llvm::DenseMap<const VarDecl *, const Expr *> LoopModule;
  llvm::SmallVector<const CXXMemberCallExpr *, 4> Pushes;
  llvm::SmallVector<const Stmt *, 32> Work = {FD->getBody()};
  while (!Work.empty()) {
    const Stmt *S = Work.pop_back_val();
    if (!S)
      continue;
    if (const auto *For = dyn_cast<CXXForRangeStmt>(S))
      if (const Expr *M = parametersOf(For->getRangeInit()))
        LoopModule[For->getLoopVariable()] = M;
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(S);
        MC && MC->getNumArgs() == 1 && MC->getMethodDecl() &&
        MC->getMethodDecl()->getIdentifier() &&
        (MC->getMethodDecl()->getName() == "push_back" ||
         MC->getMethodDecl()->getName() == "emplace_back") &&
        namedVariable(MC->getImplicitObjectArgument()) == &V)
      Pushes.push_back(MC);
    for (const Stmt *Child : S->children())
      Work.push_back(Child);
  }
  for (const CXXMemberCallExpr *Push : Pushes)
    if (const VarDecl *Item = namedVariable(Push->getArg(0)))
      if (const Expr *M = LoopModule.lookup(Item))
        Out.push_back(M);
  return Out;
}

/// A vector of parameters built from two modules on surely different
/// meshes (the modules' meshes: ModuleFacts.h).
static std::optional<MixedMeshSite>
differentModuleMeshes(const Expr *Arg, const PlacementTransfer &T,
                      ASTContext &Ctx) {
  const VarDecl *V = namedVariable(Arg);
  if (!V || !T.modules() || !V->isLocalVarDecl())
    return std::nullopt;
  llvm::SmallVector<std::pair<const Expr *, PlacementState>, 2> Facts;
  for (const Expr *M : listedModules(*V))
    if (std::optional<PlacementState> Mesh = T.modules()->meshOf(*M))
      Facts.push_back({M, *Mesh});
  return firstOnDifferentMeshes(Facts, T, Ctx);
}

// Constructors are left out: libtorch's optimizers step each parameter
// alone.
std::optional<MixedMeshSite> mixedMeshesAt(const Stmt *S,
                                           const PlacementVars &Vars,
                                           const PlacementTransfer &T,
                                           ASTContext &Ctx) {
  const auto *Call = dyn_cast<CallExpr>(S);
  if (!Call)
    return std::nullopt;
  if (std::optional<TensorOpCall> Op = readTensorOp(*Call, T.index())) {
    std::optional<MixedMeshSite> Site =
        differentMeshes(Op->Operands, Vars, T, Ctx);
    if (Site) {
      Site->Call = Call;
      Site->Name = "aten::" + Op->Name;
    }
    return Site;
  }
  // A module applied to a DTensor on another mesh than its parameters'.
  if (const Expr *Input = moduleInput(*Call, T.index())) {
    std::optional<PlacementState> Module =
        T.modules() ? T.modules()->meshOf(*moduleOfForward(*Call))
                    : std::nullopt;
    std::optional<PlacementState> In = T.evaluate(Input, Vars);
    if (!Module || !In || !surelyDifferentMeshes(*Module, *In, T.index(), Ctx))
      return std::nullopt;
    MixedMeshSite Site;
    Site.Call = Call;
    Site.Name = "forward";
    Site.Module = true;
    Site.First = moduleOfForward(*Call);
    Site.Second = Input;
    Site.FirstMesh = describeMesh(*Module, T.index(), Ctx);
    Site.SecondMesh = describeMesh(*In, T.index(), Ctx);
    Site.FirstAt = Module->MeshAt;
    Site.SecondAt = In->MeshAt;
    return Site;
  }
  const FunctionDecl *FD = Call->getDirectCallee();
  if (!FD || isa<CXXMethodDecl>(FD))
    return std::nullopt;
  std::string Name = FD->getQualifiedNameAsString();
  if (!StringRef(Name).starts_with("at::") &&
      !StringRef(Name).starts_with("torch::"))
    return std::nullopt;
  for (const Expr *Arg : Call->arguments()) {
    llvm::SmallVector<const Expr *, 4> Listed = listedTensors(Arg, T.index());
    std::optional<MixedMeshSite> Site =
        Listed.empty() ? differentModuleMeshes(Arg, T, Ctx)
                       : differentMeshes(Listed, Vars, T, Ctx);
    if (Site) {
      Site->Call = Call;
      Site->Name = Name;
      Site->InList = true;
      return Site;
    }
  }
  return std::nullopt;
}

/// Whether \p Call is an all-Replicate from_local without run_check (or
/// with run_check false); sets the verify argument's facts.
bool unverifiedReplicate(const CallExpr &Call, const ApiIndex &Index,
                         ASTContext &Ctx, const Expr *&VerifyArg,
                         unsigned &VerifyIndex) {
  const PlacementCallEntry *E = Index.placementCall(Call.getDirectCallee());
  if (!E || E->Role != PlacementRole::SetsPlacements || E->VerifyArg < 0 ||
      E->PlacementsArg < 0 || unsigned(E->PlacementsArg) >= Call.getNumArgs() ||
      !Call.getNumArgs() || !spellsOnlyReplicate(Call.getArg(E->PlacementsArg)))
    return false;
  VerifyIndex = unsigned(E->VerifyArg);
  VerifyArg = nullptr;
  if (VerifyIndex < Call.getNumArgs() &&
      !isa<CXXDefaultArgExpr>(Call.getArg(VerifyIndex))) {
    VerifyArg = Call.getArg(VerifyIndex);
    bool Value = true;
    if (VerifyArg->isValueDependent() ||
        !VerifyArg->EvaluateAsBooleanCondition(Value, Ctx) || Value)
      return false; // verified, or maybe verified
  }
  return true;
}

std::optional<LocalReplica> localReplicaAt(const Stmt *S,
                                           const PlacementVars &Vars,
                                           const PlacementTransfer &T,
                                           ASTContext &Ctx) {
  const auto *Call = dyn_cast<CallExpr>(S);
  LocalReplica R;
  if (!Call ||
      !unverifiedReplicate(*Call, T.index(), Ctx, R.VerifyArg, R.VerifyIndex))
    return std::nullopt;
  R.Call = Call;
  std::optional<PlacementState> F = T.evaluate(Call->getArg(0), Vars);
  if (!F || !F->ToLocal || (!F->isShardLocal() && !F->isPartialLocal()))
    return std::nullopt;
  R.Local = Call->getArg(0);
  R.ToLocal = F->ToLocal;
  R.Partial = F->isPartialLocal();
  R.PlacedAt = R.Partial ? F->PartialOrigin : F->PlacedAt;
  return R;
}

} // namespace analysis
} // namespace meshguard
