//===--- PlacementSites.cpp - What the checks find at a call --------------===//
//
// Given the placement facts before a call: a share of a Partial value used
// as the value, an op without a sharding rule on a maybe-sharded DTensor,
// DTensors of different meshes in one op or list.
//
//===----------------------------------------------------------------------===//

#include "Placements/PlacementSites.h"
#include "Placements/ModuleFacts.h"
#include "Placements/OperatorRules.h"
#include "meshguard/Analysis/TensorOperands.h"
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
    if (std::optional<MixedMeshSite> Site =
            differentMeshes(Listed, Vars, T, Ctx)) {
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
static bool unverifiedReplicate(const CallExpr &Call, const ApiIndex &Index,
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

/// libtorch's random factories (at:: and torch::), which draw from the
/// default generator or the one they are given.
static bool isRandomFactory(const CallExpr &Call) {
  const FunctionDecl *FD = Call.getDirectCallee();
  if (!FD || !FD->getIdentifier() || isa<CXXMethodDecl>(FD))
    return false;
  std::string Name = FD->getQualifiedNameAsString();
  StringRef N(Name);
  if (!N.consume_front("at::") && !N.consume_front("torch::"))
    return false;
  return llvm::is_contained({"rand", "randn", "randint", "randperm", "normal",
                             "bernoulli", "rand_like", "randn_like",
                             "randint_like", "multinomial"},
                            N);
}

/// A call that seeds a generator: manual_seed(s) (at:: or torch::), or
/// Generator::set_current_seed(s).
static bool isSeedCall(const CallExpr &Call) {
  const FunctionDecl *FD = Call.getDirectCallee();
  if (!FD || !FD->getIdentifier() || Call.getNumArgs() < 1)
    return false;
  if (const auto *MD = dyn_cast<CXXMethodDecl>(FD))
    return MD->getName() == "set_current_seed" && MD->getParent() &&
           MD->getParent()->getName() == "Generator";
  std::string Name = FD->getQualifiedNameAsString();
  return Name == "at::manual_seed" || Name == "torch::manual_seed";
}

static bool isGeneratorType(QualType T) {
  T = T.getNonReferenceType();
  const auto *RD = T->getAsCXXRecordDecl();
  if (const auto *Spec =
          dyn_cast_or_null<ClassTemplateSpecializationDecl>(RD)) // optional<>
    if (Spec->getTemplateArgs().size() == 1 &&
        Spec->getTemplateArgs()[0].getKind() == TemplateArgument::Type)
      RD = Spec->getTemplateArgs()[0].getAsType()->getAsCXXRecordDecl();
  return RD && RD->getIdentifier() && RD->getName() == "Generator";
}

static void collectCalls(const Stmt *S,
                         llvm::SmallVectorImpl<const CallExpr *> &Out) {
  if (!S)
    return;
  if (const auto *Call = dyn_cast<CallExpr>(S))
    Out.push_back(Call);
  for (const Stmt *Child : S->children())
    collectCalls(Child, Out);
}

/// The random factory call \p E's value is drawn by, through local
/// variables' initialisers and the ops applied to it, or null.
static const CallExpr *randomSource(const Expr *E, unsigned Depth = 0) {
  if (!E || Depth > 3)
    return nullptr;
  const Expr *Found = findSubExpr(E, [](const Expr *X) {
    const auto *C = dyn_cast<CallExpr>(X);
    return C && isRandomFactory(*C);
  });
  if (Found)
    return cast<CallExpr>(Found);
  const auto *Ref = dyn_cast_or_null<DeclRefExpr>(stripCopies(E));
  const auto *V = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  return V && V->isLocalVarDecl() ? randomSource(V->getInit(), Depth + 1)
                                  : nullptr;
}

std::vector<ReplicaSourceCandidate>
replicaSourceCandidates(const FunctionDecl &FD, const ApiIndex &Index,
                        ASTContext &Ctx) {
  std::vector<ReplicaSourceCandidate> Out;
  llvm::SmallVector<const CallExpr *, 32> Calls;
  collectCalls(FD.getBody(), Calls);
  const SourceManager &SM = Ctx.getSourceManager();
  for (const CallExpr *Call : Calls) {
    ReplicaSourceCandidate C;
    if (!unverifiedReplicate(*Call, Index, Ctx, C.VerifyArg, C.VerifyIndex))
      continue;
    C.Call = Call;
    C.Local = Call->getArg(0);
    const auto *Ref = dyn_cast_or_null<DeclRefExpr>(stripCopies(C.Local));
    // `auto [x_local, y_local] = make_shard(x, y, rank, world);`: each
    // argument of the call that is no tensor (the rank, a seed).
    if (const auto *Binding =
            Ref ? dyn_cast<BindingDecl>(Ref->getDecl()) : nullptr) {
      const auto *Whole =
          dyn_cast_or_null<VarDecl>(Binding->getDecomposedDecl());
      const auto *Made = dyn_cast_or_null<CallExpr>(
          Whole && Whole->getInit() ? stripCopies(Whole->getInit()) : nullptr);
      if (!Made)
        continue;
      llvm::ArrayRef<const Expr *> Args(Made->getArgs(), Made->getNumArgs());
      for (unsigned I = 0; I < Args.size(); ++I)
        if (!Index.isTensorType(Args[I]->getType()) &&
            Args[I]->getType()->isScalarType()) {
          C.What = ReplicaSourceCandidate::Kind::Binding;
          C.Probe = Made;
          C.ProbeArg = I;
          Out.push_back(C);
        }
      continue;
    }
    const CallExpr *Random = randomSource(C.Local);
    if (!Random)
      continue;
    // Given a generator: whether it differs per rank.
    bool Given = false;
    for (unsigned I = 0; I < Random->getNumArgs(); ++I)
      if (isGeneratorType(Random->getArg(I)->getType())) {
        C.What = ReplicaSourceCandidate::Kind::Generator;
        C.Probe = Random;
        C.ProbeArg = I;
        Out.push_back(C);
        Given = true;
      }
    if (Given)
      continue;
    // The default generator: the last manual_seed before the draw.
    const CallExpr *Seed = nullptr;
    for (const CallExpr *S : Calls)
      if (isSeedCall(*S) && !isa<CXXMemberCallExpr>(S) &&
          SM.isBeforeInTranslationUnit(S->getBeginLoc(),
                                       Random->getBeginLoc()) &&
          (!Seed ||
           SM.isBeforeInTranslationUnit(Seed->getBeginLoc(), S->getBeginLoc())))
        Seed = S;
    if (Seed) {
      C.What = ReplicaSourceCandidate::Kind::Seeded;
      C.Probe = Seed;
      C.ProbeArg = 0;
      Out.push_back(C);
    }
  }
  return Out;
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
