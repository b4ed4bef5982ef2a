//===--- DeadValues.cpp - Forget values whose objects have died ----------===//

#include "Provenance/DeadValues.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Analysis/FlowSensitive/StorageLocation.h"
#include "llvm/ADT/SmallVector.h"

using namespace clang;
using namespace clang::dataflow;

namespace meshguard {
namespace analysis {

namespace {

bool isRecordPRValue(const Expr *E) {
  return E && E->isPRValue() && E->getType()->isRecordType();
}

/// The record prvalues of a full-expression whose result objects are
/// temporaries that die with it, children before parents (the order their
/// fields were written in, so clearing them backwards erases from the end of
/// the environment's map, which is cheap).
class TemporaryFinder {
public:
  void find(const Stmt *S) {
    if (!S || isa<StmtExpr>(S) || isa<BlockExpr>(S))
      return; // Their statements are full-expressions of their own.
    if (const auto *Lambda = dyn_cast<LambdaExpr>(S)) {
      for (const Expr *Init : Lambda->capture_inits())
        find(Init); // The body is another function.
      return;
    }
    for (const Stmt *Child : S->children())
      find(Child);
    if (const auto *MTE = dyn_cast<MaterializeTemporaryExpr>(S))
      materialized(*MTE);
    else if (const auto *Call = dyn_cast<CallExpr>(S))
      byValue(Call->arguments());
    else if (const auto *Construct = dyn_cast<CXXConstructExpr>(S))
      byValue(Construct->arguments());
  }

  llvm::SmallVector<const Expr *, 8> Found;

private:
  void materialized(const MaterializeTemporaryExpr &MTE) {
    if (MTE.getStorageDuration() != SD_FullExpression)
      return; // Bound to a reference that outlives the statement.
    const Expr *Sub = MTE.getSubExpr();
    if (isRecordPRValue(Sub)) {
      Found.push_back(Sub);
      return;
    }
    // The array behind a std::initializer_list.
    if (const auto *List = dyn_cast<InitListExpr>(Sub->IgnoreImplicit()))
      for (const Expr *Init : List->inits())
        if (isRecordPRValue(Init))
          Found.push_back(Init);
  }

  template <typename Range> void byValue(Range Args) {
    for (const Expr *Arg : Args)
      if (isRecordPRValue(Arg) && !isa<CXXDefaultArgExpr>(Arg))
        Found.push_back(Arg);
  }
};

/// Clears the fields of \p L, nested records included; referenced objects
/// (reference members) are not \p L's and keep their values.
void clearFields(const RecordStorageLocation &L, Environment &Env) {
  for (const auto &Field : L.synthetic_fields())
    Env.clearValue(*Field.second);
  for (const auto &[Decl, Child] : L.children()) {
    if (!Child || Decl->getType()->isReferenceType())
      continue;
    if (const auto *Nested = dyn_cast<RecordStorageLocation>(Child))
      clearFields(*Nested, Env);
    else
      Env.clearValue(*Child);
  }
}

bool isTransparent(const Stmt *S) {
  return isa<ParenExpr>(S) || isa<FullExpr>(S);
}

} // namespace

DeadValues::DeadValues(const CFG &G, const Stmt &Body)
    : Parents(const_cast<Stmt *>(&Body)) {
  for (const CFGBlock *B : G)
    if (B)
      collectBlock(*B);
}

const Stmt *DeadValues::enclosingStatement(const Stmt &S) const {
  if (!isa<Expr>(S))
    return nullptr;
  const Stmt *Parent = Parents.getParent(&S);
  while (Parent && isTransparent(Parent))
    Parent = Parents.getParent(Parent);
  if (!Parent || isa<Expr>(Parent) || isa<DeclStmt>(Parent))
    return nullptr;
  // The last statement of a GNU statement expression is its value (also
  // when labelled or given attributes).
  const Stmt *Holder = Parent;
  while (Holder && (isa<LabelStmt>(Holder) || isa<AttributedStmt>(Holder)))
    Holder = Parents.getParent(Holder);
  if (const auto *Block = dyn_cast_or_null<CompoundStmt>(Holder))
    if (isa_and_nonnull<StmtExpr>(Parents.getParent(Block)))
      return nullptr;
  return Parent;
}

void DeadValues::collectBlock(const CFGBlock &B) {
  // What a block that leads only to the exit leaves is never joined.
  bool OnlyExit = true;
  for (const CFGBlock *Succ : B.succs())
    if (Succ && Succ->succ_size() != 0)
      OnlyExit = false;
  if (OnlyExit)
    return;

  llvm::SmallVector<DeadObject, 8> Dead;
  const Stmt *Last = nullptr;
  for (const CFGElement &Elt : B) {
    if (auto Lifetime = Elt.getAs<CFGLifetimeEnds>()) {
      if (const VarDecl *VD = Lifetime->getVarDecl();
          VD && !VD->getType()->isReferenceType())
        Dead.push_back(VD);
      continue;
    }
    TemporaryFinder Temporaries;
    if (auto Init = Elt.getAs<CFGInitializer>()) {
      Temporaries.find(Init->getInitializer()->getInit());
    } else if (auto S = Elt.getAs<CFGStmt>()) {
      const Stmt *Root = S->getStmt();
      Last = Root;
      if (const auto *DS = dyn_cast<DeclStmt>(Root)) {
        for (const Decl *D : DS->decls())
          if (const auto *VD = dyn_cast<VarDecl>(D))
            Temporaries.find(VD->getInit());
      } else if (const Stmt *Parent = enclosingStatement(*Root)) {
        Temporaries.find(Root);
        // A discarded value: `torch::randn({4});` as a statement.
        if (isRecordPRValue(cast<Expr>(Root)) && !isa<ReturnStmt>(Parent) &&
            !isa<CoreturnStmt>(Parent))
          Temporaries.Found.push_back(cast<Expr>(Root));
      }
    }
    Dead.append(Temporaries.Found.begin(), Temporaries.Found.end());
  }
  if (!Last || Dead.empty())
    return;
  if (Dead.size() > MaxReleasesPerBlock)
    Dead.erase(Dead.begin(), Dead.end() - MaxReleasesPerBlock);
  DeadAfter[Last].assign(Dead.begin(), Dead.end());
}

void DeadValues::releaseAfter(const CFGElement &Elt, Environment &Env) const {
  auto S = Elt.getAs<CFGStmt>();
  if (!S)
    return;
  auto It = DeadAfter.find(S->getStmt());
  if (It == DeadAfter.end())
    return;
  // Newest first: erasing the map's last entry is cheap.
  for (DeadObject Object : llvm::reverse(It->second)) {
    if (const auto *E = Object.dyn_cast<const Expr *>()) {
      clearFields(Env.getResultObjectLocation(*E), Env);
      continue;
    }
    // The framework has dropped the variable from the environment when its
    // lifetime ended; its location is the stable one.
    StorageLocation &L =
        Env.getDataflowAnalysisContext().getStableStorageLocation(
            *Object.get<const VarDecl *>());
    if (const auto *Record = dyn_cast<RecordStorageLocation>(&L))
      clearFields(*Record, Env);
    else
      Env.clearValue(L);
  }
}

} // namespace analysis
} // namespace meshguard
