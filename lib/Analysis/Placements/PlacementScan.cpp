//===--- PlacementScan.cpp - What DTensor placements lead to --------------===//
//
// Runs PlacementTransfer to a fixpoint over a function's CFG (a union at
// joins: a may-analysis, as RankFlow), then visits each call with the facts
// before it: uses of partial local values, ops without a sharding rule,
// DTensors of different meshes combined. Helpers of the TU
// are summarised once (PlacementMemo): what they return, and which
// parameters they use as full values (each tensor parameter seeded as a
// partial local value of its own).
//
//===----------------------------------------------------------------------===//

#include "meshguard/Analysis/PlacementScan.h"
#include "Placements/OperatorRules.h"
#include "Placements/PlacementFacts.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Analysis/Analyses/PostOrderCFGView.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/DenseSet.h"

using namespace clang;

namespace meshguard {
namespace analysis {

struct PlacementMemo::Impl {
  ASTContext &Ctx;
  const ApiIndex &Index;
  AnalysisLimits Limits;
  /// Null while being computed (recursion: unknown).
  llvm::DenseMap<const FunctionDecl *, std::unique_ptr<HelperPlacements>>
      Helpers;

  const HelperPlacements *helper(const FunctionDecl &FD);
  PlacementTransfer transfer() {
    return PlacementTransfer(
        Ctx, Index, [this](const FunctionDecl &FD) { return helper(FD); });
  }
};

PlacementMemo::PlacementMemo(ASTContext &Ctx, const ApiIndex &Index,
                             AnalysisLimits Limits)
    : State(new Impl{Ctx, Index, Limits,
                     llvm::DenseMap<const FunctionDecl *,
                                    std::unique_ptr<HelperPlacements>>()}) {}
PlacementMemo::~PlacementMemo() = default;

namespace {

/// The facts before each CFG element, after a fixpoint.
class PlacementFlow {
public:
  PlacementFlow(const CFG &Cfg, const PlacementTransfer &Transfer,
                PlacementVars Entry)
      : Cfg(Cfg), Transfer(Transfer), Entry(std::move(Entry)),
        In(Cfg.getNumBlockIDs()), Out(Cfg.getNumBlockIDs()),
        Done(Cfg.getNumBlockIDs(), false) {}

  bool solve(const AnalysisLimits &Limits) {
    PostOrderCFGView Order(&Cfg);
    std::int32_t Visits = 0;
    for (bool Changed = true; Changed;) {
      Changed = false;
      for (const CFGBlock *B : Order) {
        if (++Visits > Limits.MaxBlockVisits)
          return false;
        unsigned ID = B->getBlockID();
        PlacementVars Vars = B == &Cfg.getEntry() ? Entry : PlacementVars();
        for (const CFGBlock *P : B->preds())
          if (P && Done[P->getBlockID()])
            for (const auto &[V, S] : Out[P->getBlockID()]) {
              auto [It, New] = Vars.try_emplace(V, S);
              if (!New)
                It->second.join(S);
            }
        In[ID] = Vars;
        for (const CFGElement &E : *B)
          if (std::optional<CFGStmt> S = E.getAs<CFGStmt>())
            Transfer.transfer(S->getStmt(), Vars);
        if (!Done[ID] || Vars != Out[ID]) {
          Out[ID] = std::move(Vars);
          Done[ID] = true;
          Changed = true;
        }
      }
    }
    return true;
  }

  /// Calls \p Visit with each statement of the CFG and the facts before it.
  void visit(llvm::function_ref<void(const Stmt *, const PlacementVars &)>
                 Visit) const {
    for (const CFGBlock *B : Cfg) {
      if (!Done[B->getBlockID()])
        continue;
      PlacementVars Vars = In[B->getBlockID()];
      for (const CFGElement &E : *B)
        if (std::optional<CFGStmt> S = E.getAs<CFGStmt>()) {
          Visit(S->getStmt(), Vars);
          Transfer.transfer(S->getStmt(), Vars);
        }
    }
  }

private:
  const CFG &Cfg;
  const PlacementTransfer &Transfer;
  PlacementVars Entry;
  std::vector<PlacementVars> In, Out;
  std::vector<bool> Done;
};

/// A use of a partial local value as the full one, with the value's facts.
struct FoundUse {
  PartialLocalUse Use;
  PlacementState Value;
};

/// The uses \p S makes of partial local values under \p Vars.
void usesAt(const Stmt *S, const PlacementVars &Vars,
            const PlacementTransfer &T, llvm::SmallVectorImpl<FoundUse> &Out) {
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
                 const Expr *Inner = nullptr) {
    PartialLocalUse U;
    U.Use = Call;
    U.Kind = Kind;
    U.What = std::move(What);
    U.ToLocal = V.ToLocal;
    U.PartialOrigin = V.PartialOrigin;
    U.InnerUse = Inner;
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
      if (F && !Local)
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
  const FunctionDecl *Def = FD->getDefinition();
  const HelperPlacements *H = Def ? T.helper(*Def) : nullptr;
  if (!H)
    return;
  // Through a helper: the argument of a parameter it uses as full.
  unsigned Shift = isa<CXXOperatorCallExpr>(Call) && isa<CXXMethodDecl>(FD);
  for (unsigned I = 0; I < H->FullUseOfParam.size(); ++I)
    if (H->FullUseOfParam[I] && I + Shift < Call->getNumArgs())
      if (std::optional<PlacementState> V =
              PartialLocal(Call->getArg(I + Shift)))
        return Add(FullUseKind::Helper, Def->getNameAsString(), *V,
                   H->FullUseOfParam[I]);
}

} // namespace

const HelperPlacements *PlacementMemo::Impl::helper(const FunctionDecl &FD) {
  auto [It, New] = Helpers.try_emplace(&FD);
  if (!New)
    return It->second.get();
  AnalysisOutcome Outcome;
  std::unique_ptr<CFG> Cfg = buildAdmittedCFG(FD, Ctx, Limits, Outcome);
  if (!Cfg)
    return nullptr;
  // Each tensor parameter stands for a partial local value of its own.
  PlacementVars Entry;
  for (const ParmVarDecl *P : FD.parameters())
    if (Index.isTensorType(P->getType())) {
      PlacementState S;
      S.What = PlacementState::Kind::PartialLocal;
      S.Param = P;
      Entry[P] = S;
    }
  PlacementTransfer T = transfer();
  PlacementFlow Flow(*Cfg, T, std::move(Entry));
  if (!Flow.solve(Limits))
    return nullptr;
  auto Summary = std::make_unique<HelperPlacements>();
  Summary->FullUseOfParam.assign(FD.getNumParams(), nullptr);
  bool Any = false;
  Flow.visit([&](const Stmt *S, const PlacementVars &Vars) {
    if (const auto *Ret = dyn_cast<ReturnStmt>(S)) {
      if (std::optional<PlacementState> R =
              T.evaluate(Ret->getRetValue(), Vars)) {
        if (Summary->Returns)
          Summary->Returns->join(*R);
        else
          Summary->Returns = R;
        Any = true;
      }
      return;
    }
    llvm::SmallVector<FoundUse, 1> Uses;
    usesAt(S, Vars, T, Uses);
    for (const FoundUse &U : Uses)
      if (const ParmVarDecl *P = U.Value.Param) {
        const Expr *&Slot = Summary->FullUseOfParam[P->getFunctionScopeIndex()];
        if (!Slot) {
          Slot = U.Use.InnerUse ? U.Use.InnerUse : U.Use.Use;
          Any = true;
        }
      }
  });
  if (!Any)
    return nullptr;
  Helpers[&FD] = std::move(Summary);
  return Helpers[&FD].get();
}

/// An op without a sharding rule given a DTensor that may be sharded or
/// Partial, at \p S.
static std::optional<UnruledOp> unruledOpAt(const Stmt *S,
                                            const PlacementVars &Vars,
                                            const PlacementTransfer &T) {
  const auto *Call = dyn_cast<CallExpr>(S);
  std::optional<TensorOpCall> Op =
      Call ? readTensorOp(*Call, T.index()) : std::nullopt;
  const OperatorRule *Rule = Op ? findOperatorRule(Op->Name) : nullptr;
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
  const Expr *E = Arg->IgnoreImplicit();
  for (unsigned Depth = 0; E && Depth < 6 && !isa<InitListExpr>(E); ++Depth) {
    if (const auto *C = dyn_cast<CXXConstructExpr>(E))
      E = C->getNumArgs() ? C->getArg(0)->IgnoreImplicit() : nullptr;
    else if (const auto *L = dyn_cast<CXXStdInitializerListExpr>(E))
      E = L->getSubExpr()->IgnoreImplicit();
    else if (const auto *M = dyn_cast<MaterializeTemporaryExpr>(E))
      E = M->getSubExpr()->IgnoreImplicit();
    else
      E = nullptr;
  }
  if (const auto *List = dyn_cast_or_null<InitListExpr>(E))
    for (const Expr *Element : List->inits())
      if (Index.isTensorType(Element->getType()))
        Out.push_back(Element);
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

/// DTensors of different meshes in one op at \p S, or in one braced list
/// given to a libtorch function (constructors excluded: libtorch's
/// optimizers step each parameter alone).
static std::optional<MixedMeshSite> mixedMeshesAt(const Stmt *S,
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

PlacementScan scanPlacements(const FunctionDecl &FD, PlacementMemo &Memo) {
  PlacementScan Scan;
  PlacementMemo::Impl &M = Memo.impl();
  std::unique_ptr<CFG> Cfg =
      buildAdmittedCFG(FD, M.Ctx, M.Limits, Scan.Result.Outcome);
  if (!Cfg)
    return Scan;
  PlacementTransfer T = M.transfer();
  PlacementFlow Flow(*Cfg, T, PlacementVars());
  if (!Flow.solve(M.Limits)) {
    Scan.Result.Outcome = AnalysisOutcome::BlockVisitLimit;
    return Scan;
  }
  llvm::DenseSet<const Expr *> Seen;
  Flow.visit([&](const Stmt *S, const PlacementVars &Vars) {
    llvm::SmallVector<FoundUse, 1> Uses;
    usesAt(S, Vars, T, Uses);
    for (FoundUse &U : Uses)
      if (U.Value.ToLocal && Seen.insert(U.Use.Use).second)
        Scan.PartialUses.push_back(std::move(U.Use));
    if (std::optional<UnruledOp> U = unruledOpAt(S, Vars, T))
      if (Seen.insert(U->Call).second)
        Scan.UnruledOps.push_back(std::move(*U));
    if (std::optional<MixedMeshSite> Site = mixedMeshesAt(S, Vars, T, M.Ctx))
      Scan.MixedMeshes.push_back(std::move(*Site));
  });
  const SourceManager &SM = M.Ctx.getSourceManager();
  auto Before = [&](const Expr *A, const Expr *B) {
    return SM.isBeforeInTranslationUnit(A->getBeginLoc(), B->getBeginLoc());
  };
  llvm::stable_sort(Scan.PartialUses,
                    [&](const PartialLocalUse &A, const PartialLocalUse &B) {
                      return Before(A.Use, B.Use);
                    });
  llvm::stable_sort(Scan.UnruledOps,
                    [&](const UnruledOp &A, const UnruledOp &B) {
                      return Before(A.Call, B.Call);
                    });
  llvm::stable_sort(Scan.MixedMeshes,
                    [&](const MixedMeshSite &A, const MixedMeshSite &B) {
                      return Before(A.Call, B.Call);
                    });
  return Scan;
}

} // namespace analysis
} // namespace meshguard
