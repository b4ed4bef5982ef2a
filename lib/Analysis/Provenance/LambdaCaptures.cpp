//===--- LambdaCaptures.cpp - Provenance a lambda's captures carry --------===//

#include "meshguard/Analysis/Provenance/LambdaCaptures.h"
#include "Provenance/VariableWrites.h"
#include "meshguard/Analysis/Provenance/Provenance.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/LambdaCapture.h"
#include "clang/AST/ParentMap.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Analysis/CFG.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include <optional>

using namespace clang;
using namespace clang::dataflow;

namespace meshguard {
namespace analysis {

/// One enclosing function: its lambdas, and (once asked) the facts of each.
struct LambdaCaptureMemo::Enclosing {
  const FunctionDecl *FD = nullptr;
  bool Scanned = false;
  /// Statements and expressions of the body, lambda bodies included.
  std::int64_t Stmts = 0;
  llvm::DenseMap<const CXXRecordDecl *, const LambdaExpr *> Lambdas;
  bool HasFacts = false;
  llvm::DenseMap<const LambdaExpr *, CaptureFacts> Facts;
  /// changedOnlyInPlace, per variable declared here.
  std::unique_ptr<ParentMap> Parents;
  llvm::DenseMap<const VarDecl *, bool> OnlyInPlace;
};

namespace {
/// One walk: every lambda expression of a body by its closure class, and
/// the body's size.
class LambdaScan : public RecursiveASTVisitor<LambdaScan> {
public:
  explicit LambdaScan(LambdaCaptureMemo::Enclosing &E) : E(E) {}
  bool VisitStmt(Stmt *) {
    ++E.Stmts;
    return true;
  }
  bool VisitLambdaExpr(LambdaExpr *L) {
    E.Lambdas[L->getLambdaClass()] = L;
    return true;
  }

private:
  LambdaCaptureMemo::Enclosing &E;
};

/// Where each statement of a CFG is evaluated: its blocks and positions.
class ElementIndex {
public:
  ElementIndex(const CFG &G, const ParentMap &Parents) : Parents(Parents) {
    for (const CFGBlock *B : G)
      for (unsigned I = 0, N = B->size(); I < N; ++I)
        if (auto S = (*B)[I].getAs<CFGStmt>())
          Where[S->getStmt()].push_back({B, I});
  }
  struct Place {
    const CFGBlock *Block;
    unsigned Index;
  };
  /// Where \p S (or the nearest statement around it that is an element) is
  /// evaluated; empty when nowhere.
  llvm::ArrayRef<Place> of(const Stmt *S) const {
    for (; S; S = Parents.getParent(S))
      if (auto It = Where.find(S); It != Where.end())
        return It->second;
    return {};
  }

private:
  const ParentMap &Parents;
  llvm::DenseMap<const Stmt *, llvm::SmallVector<Place, 1>> Where;
};

/// Whether control can reach one of a variable's writes after a point of
/// the function: the blocks from which a write is reachable, found by one
/// backward walk per variable. The walks of one function share a budget of
/// a few times the CFG's size, so that many written variables cannot make
/// the pass quadratic; past it a variable counts as written everywhere.
class WriteReach {
public:
  WriteReach(const CFG &G, const ElementIndex &Elements)
      : Elements(Elements), Budget(8 * std::int64_t(G.size()) + 4096) {}

  /// Prepares for \p Writes; false when unsure (a write outside the CFG,
  /// or the budget spent).
  bool reset(llvm::ArrayRef<const Stmt *> Writes) {
    LastWrite.clear();
    Reaches.clear();
    llvm::SmallVector<const CFGBlock *, 16> Work;
    for (const Stmt *W : Writes) {
      llvm::ArrayRef<ElementIndex::Place> Places = Elements.of(W);
      if (Places.empty())
        return false;
      for (const ElementIndex::Place &P : Places) {
        auto [It, New] = LastWrite.try_emplace(P.Block, P.Index);
        if (!New)
          It->second = std::max(It->second, P.Index);
        if (Reaches.insert(P.Block).second)
          Work.push_back(P.Block);
      }
    }
    while (!Work.empty()) {
      if (--Budget < 0)
        return false;
      const CFGBlock *B = Work.pop_back_val();
      for (const CFGBlock *Pred : B->preds())
        if (Pred && Reaches.insert(Pred).second)
          Work.push_back(Pred);
    }
    return true;
  }

  /// Whether a write can run after \p S has run (true when unsure).
  bool canFollow(const Stmt *S) const {
    llvm::ArrayRef<ElementIndex::Place> Places = Elements.of(S);
    if (Places.empty())
      return true;
    for (const ElementIndex::Place &P : Places) {
      if (auto It = LastWrite.find(P.Block);
          It != LastWrite.end() && It->second > P.Index)
        return true;
      for (const CFGBlock *Succ : P.Block->succs())
        if (Succ && Reaches.contains(Succ))
          return true;
    }
    return false;
  }

private:
  const ElementIndex &Elements;
  std::int64_t Budget;
  llvm::DenseMap<const CFGBlock *, unsigned> LastWrite;
  llvm::DenseSet<const CFGBlock *> Reaches;
};

/// The tensor variables \p Lambda captures that carry a fact.
llvm::SmallVector<std::pair<const VarDecl *, bool>, 4>
capturedTensors(const LambdaExpr &Lambda, const ApiIndex &Index) {
  llvm::SmallVector<std::pair<const VarDecl *, bool>, 4> Vars;
  for (const LambdaCapture &Capture : Lambda.captures()) {
    if (!Capture.capturesVariable())
      continue;
    const auto *VD = dyn_cast<VarDecl>(Capture.getCapturedVar());
    if (!VD || !Index.isTensorType(VD->getType()) ||
        VD->getType()->isReferenceType())
      continue;
    Vars.push_back({VD, Capture.getCaptureKind() == LCK_ByRef});
  }
  return Vars;
}
} // namespace

LambdaCaptureMemo::LambdaCaptureMemo() = default;
LambdaCaptureMemo::~LambdaCaptureMemo() = default;

LambdaCaptureMemo::Enclosing &
LambdaCaptureMemo::enclosing(const FunctionDecl &FD) {
  std::unique_ptr<Enclosing> &Slot = ByFunction[&FD];
  if (!Slot) {
    Slot = std::make_unique<Enclosing>();
    Slot->FD = &FD;
  }
  if (!Slot->Scanned) {
    Slot->Scanned = true;
    LambdaScan(*Slot).TraverseStmt(FD.getBody());
  }
  return *Slot;
}

bool LambdaCaptureMemo::changedOnlyInPlace(const VarDecl &VD) {
  const auto *FD = dyn_cast<FunctionDecl>(VD.getDeclContext());
  if (!VD.hasLocalStorage() || !FD || !FD->getBody())
    return false;
  Enclosing &E = enclosing(*FD);
  auto [It, New] = E.OnlyInPlace.try_emplace(&VD, false);
  if (!New)
    return It->second;
  if (!E.Parents)
    E.Parents = std::make_unique<ParentMap>(FD->getBody());
  llvm::DenseSet<const VarDecl *> Vars{&VD};
  llvm::DenseMap<const VarDecl *, VariableWrites> Writes =
      findVariableWrites(*FD->getBody(), Vars, *E.Parents);
  auto W = Writes.find(&VD);
  bool Result =
      W == Writes.end() || (!W->second.InLambda && !W->second.Escapes);
  // The map may have grown: look the slot up again.
  E.OnlyInPlace[&VD] = Result;
  return Result;
}

const LambdaExpr *LambdaCaptureMemo::lambdaExpr(const CXXRecordDecl &Closure) {
  const auto *FD = dyn_cast<FunctionDecl>(Closure.getDeclContext());
  if (!Closure.isLambda() || !FD || !FD->getBody())
    return nullptr;
  return enclosing(*FD).Lambdas.lookup(&Closure);
}

const CaptureFacts &LambdaCaptureMemo::facts(const CXXMethodDecl &CallOperator,
                                             ASTContext &Ctx,
                                             const ApiIndex &Index,
                                             const AnalysisLimits &Limits) {
  const CXXRecordDecl *Closure = CallOperator.getParent();
  const LambdaExpr *Lambda = Closure ? lambdaExpr(*Closure) : nullptr;
  if (!Lambda)
    return None;
  ++LambdasAsked;
  Enclosing &E = enclosing(*cast<FunctionDecl>(Closure->getDeclContext()));
  if (!E.HasFacts) {
    E.HasFacts = true;
    computeFacts(E, Ctx, Index, Limits);
  }
  auto It = E.Facts.find(Lambda);
  return It == E.Facts.end() ? None : It->second;
}

void LambdaCaptureMemo::computeFacts(Enclosing &E, ASTContext &Ctx,
                                     const ApiIndex &Index,
                                     const AnalysisLimits &Limits) {
  // Too large to analyse: no pre-pass either.
  if (E.Stmts > Limits.MaxFunctionElements || E.FD->isDependentContext())
    return;

  // The lambdas made by this function itself (not by a lambda inside it),
  // and what they capture.
  llvm::DenseMap<const LambdaExpr *,
                 llvm::SmallVector<std::pair<const VarDecl *, bool>, 4>>
      Captures;
  llvm::DenseSet<const VarDecl *> ByRef;
  for (const auto &[Closure, Lambda] : E.Lambdas) {
    if (Closure->getDeclContext() != E.FD)
      continue;
    auto Vars = capturedTensors(*Lambda, Index);
    if (Vars.empty())
      continue;
    for (const auto &[VD, IsByRef] : Vars)
      if (IsByRef)
        ByRef.insert(VD);
    Captures[Lambda] = std::move(Vars);
  }
  if (Captures.empty())
    return;

  // A by-reference capture keeps its value when nothing can write the
  // variable between the lambda's creation and its end.
  ParentMap Parents(E.FD->getBody());
  llvm::DenseMap<const VarDecl *, VariableWrites> Writes =
      findVariableWrites(*E.FD->getBody(), ByRef, Parents);
  std::unique_ptr<CFG> Graph;
  std::optional<ElementIndex> Elements;
  std::optional<WriteReach> Reach;
  llvm::DenseMap<const LambdaExpr *, llvm::SmallVector<const VarDecl *, 4>>
      Stable;
  llvm::DenseMap<const VarDecl *, llvm::SmallVector<const LambdaExpr *, 4>>
      PendingByVar;
  for (const auto &[Lambda, Vars] : Captures)
    for (const auto &[VD, IsByRef] : Vars) {
      auto W = Writes.find(VD);
      if (!IsByRef || W == Writes.end())
        Stable[Lambda].push_back(VD);
      else if (!W->second.InLambda && !W->second.Escapes)
        PendingByVar[VD].push_back(Lambda);
    }
  if (!PendingByVar.empty()) {
    CFG::BuildOptions Options;
    Options.setAllAlwaysAdd();
    Graph = CFG::buildCFG(E.FD, E.FD->getBody(), &Ctx, Options);
    if (Graph) {
      Elements.emplace(*Graph, Parents);
      Reach.emplace(*Graph, *Elements);
      for (const auto &[VD, Lambdas] : PendingByVar) {
        if (!Reach->reset(Writes[VD].PointWrites))
          continue;
        for (const LambdaExpr *Lambda : Lambdas)
          if (!Reach->canFollow(Lambda))
            Stable[Lambda].push_back(VD);
      }
    }
  }
  if (Stable.empty())
    return;

  // One analysis of the enclosing function reads every lambda's captures
  // where it is created.
  llvm::DenseMap<const LambdaExpr *, CaptureFacts> Found;
  auto Visit = [&](const CFGElement &Elt, const Environment &Env,
                   const OriginTable &Origins) {
    auto S = Elt.getAs<CFGStmt>();
    if (!S || !isa<LambdaExpr>(S->getStmt()))
      return;
    const auto *Lambda = cast<LambdaExpr>(S->getStmt());
    auto It = Stable.find(Lambda);
    if (It == Stable.end())
      return;
    for (const VarDecl *VD : It->second) {
      auto *L =
          dyn_cast_or_null<RecordStorageLocation>(Env.getStorageLocation(*VD));
      if (!L)
        continue;
      TensorFacts F = readTensor(*L, Env, &Origins);
      Provenance P = classify(F, Env);
      if (P == Provenance::Plain || P == Provenance::DTensor)
        Found[Lambda][VD] = {P == Provenance::Plain, F.Origin};
    }
  };
  ++FunctionsAnalysed;
  // A lambda inside a lambda: the outer one's captures are asked of this
  // memo too.
  AnalysisResult Result =
      analyzeFunction(*E.FD, Ctx, Index, Limits, Visit, {nullptr, this});
  if (Result.ok())
    E.Facts = std::move(Found);
}

const LambdaExpr *findLambdaExpr(const CXXRecordDecl &Closure) {
  const auto *FD = dyn_cast<FunctionDecl>(Closure.getDeclContext());
  if (!Closure.isLambda() || !FD || !FD->getBody())
    return nullptr;
  LambdaCaptureMemo::Enclosing E;
  E.FD = FD;
  LambdaScan(E).TraverseStmt(FD->getBody());
  return E.Lambdas.lookup(&Closure);
}

} // namespace analysis
} // namespace meshguard
