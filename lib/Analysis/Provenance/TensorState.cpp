//===--- TensorState.cpp - Provenance facts stored in the Environment -----===//

#include "meshguard/Analysis/Provenance/TensorState.h"
#include "meshguard/Analysis/Api/ApiIndex.h"
#include "meshguard/Analysis/Provenance/TensorOperands.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Analysis/FlowSensitive/Arena.h"
#include "clang/Analysis/FlowSensitive/Value.h"

using namespace clang;
using namespace clang::dataflow;

namespace meshguard {
namespace analysis {

llvm::StringMap<QualType> syntheticFieldsFor(QualType T, const ApiIndex &Index,
                                             ASTContext &Ctx) {
  llvm::StringMap<QualType> Fields;
  if (Index.isTensorType(T)) {
    Fields.insert({field::Plain, Ctx.BoolTy});
    Fields.insert({field::Known, Ctx.BoolTy});
    Fields.insert({field::Origin, Ctx.VoidPtrTy});
  } else if (Index.isTensorContainerType(T)) {
    Fields.insert({field::AllPlain, Ctx.BoolTy});
    Fields.insert({field::AllDTensor, Ctx.BoolTy});
    Fields.insert({field::AnyDTensor, Ctx.BoolTy});
    Fields.insert({field::AllKnown, Ctx.BoolTy});
  } else if (Index.isModuleType(T)) {
    Fields.insert({field::ModuleDistributed, Ctx.BoolTy});
    Fields.insert({field::ModuleKnown, Ctx.BoolTy});
  }
  return Fields;
}

StorageLocation &OriginTable::locationFor(const Expr *E, Environment &Env) {
  StorageLocation *&Loc = LocOf[E];
  if (!Loc) {
    Loc = &Env.createStorageLocation(PointeeType);
    ExprOf[Loc] = E;
  }
  return *Loc;
}

/// What the pointer \p E (`p` of `p->add(x)`) points to, if known.
static RecordStorageLocation *pointee(const Expr &E, const Environment &Env) {
  PointerValue *P = nullptr;
  if (E.isPRValue()) {
    P = Env.get<PointerValue>(E);
    if (const auto *Cast = dyn_cast<ImplicitCastExpr>(&E); !P && Cast)
      return pointee(*Cast->getSubExpr()->IgnoreParens(), Env);
  } else if (StorageLocation *L = Env.getStorageLocation(E))
    P = Env.get<PointerValue>(*L);
  else if (const auto *Ref = dyn_cast<DeclRefExpr>(&E))
    // A variable named outside the statement being evaluated.
    if (const auto *VD = dyn_cast<VarDecl>(Ref->getDecl()))
      P = Env.get<PointerValue>(*VD);
  return P ? dyn_cast<RecordStorageLocation>(&P->getPointeeLoc()) : nullptr;
}

RecordStorageLocation *recordLocation(const Expr *E, const Environment &Env) {
  while (E) {
    E = E->IgnoreParens();
    if (E->getType()->isPointerType())
      return pointee(*E, Env);
    if (E->isGLValue()) {
      if (auto *L = dyn_cast_or_null<RecordStorageLocation>(
              Env.getStorageLocation(*E)))
        return L;
      // A variable named outside the statement being evaluated (a lambda's
      // capture, read where the lambda is called): the variable itself.
      if (const auto *Ref = dyn_cast<DeclRefExpr>(E))
        if (const auto *VD = dyn_cast<VarDecl>(Ref->getDecl()))
          return dyn_cast_or_null<RecordStorageLocation>(
              Env.getStorageLocation(*VD));
    }
    if (const auto *Cleanups = dyn_cast<ExprWithCleanups>(E)) {
      E = Cleanups->getSubExpr();
      continue;
    }
    if (const auto *MTE = dyn_cast<MaterializeTemporaryExpr>(E)) {
      E = MTE->getSubExpr();
      continue;
    }
    if (const auto *Bind = dyn_cast<CXXBindTemporaryExpr>(E)) {
      E = Bind->getSubExpr();
      continue;
    }
    if (const auto *Cast = dyn_cast<ImplicitCastExpr>(E)) {
      if (Cast->getCastKind() == CK_NoOp ||
          Cast->getCastKind() == CK_LValueToRValue ||
          Cast->getCastKind() == CK_UncheckedDerivedToBase ||
          Cast->getCastKind() == CK_DerivedToBase) {
        E = Cast->getSubExpr();
        continue;
      }
      return nullptr;
    }
    if (const Expr *Source = copySource(E)) {
      E = Source;
      continue;
    }
    if (E->isPRValue() && E->getType()->isRecordType())
      return &Env.getResultObjectLocation(*E);
    return nullptr;
  }
  return nullptr;
}

static const Formula &readBool(const RecordStorageLocation &L,
                               llvm::StringRef Name, const Environment &Env) {
  if (auto *B = Env.get<BoolValue>(L.getSyntheticField(Name)))
    return B->formula();
  Arena &A = Env.arena();
  return A.makeAtomRef(A.makeAtom());
}

Value *originValue(const RecordStorageLocation &L, const Environment &Env) {
  return Env.getValue(L.getSyntheticField(field::Origin));
}

TensorFacts readTensor(const RecordStorageLocation &L, const Environment &Env,
                       const OriginTable *Origins) {
  TensorFacts F{&readBool(L, field::Plain, Env),
                &readBool(L, field::Known, Env), nullptr};
  if (Origins)
    if (auto *P = dyn_cast_or_null<PointerValue>(originValue(L, Env)))
      F.Origin = Origins->exprFor(&P->getPointeeLoc());
  return F;
}

ContainerFacts readContainer(const RecordStorageLocation &L,
                             const Environment &Env) {
  return {
      &readBool(L, field::AllPlain, Env), &readBool(L, field::AllDTensor, Env),
      &readBool(L, field::AnyDTensor, Env), &readBool(L, field::AllKnown, Env)};
}

static void writeBool(RecordStorageLocation &L, llvm::StringRef Name,
                      const Formula &F, Environment &Env) {
  Env.setValue(L.getSyntheticField(Name), Env.arena().makeBoolValue(F));
}

void writeTensor(RecordStorageLocation &L, const Formula &Plain,
                 const Formula &Known, Value *Origin, Environment &Env) {
  writeBool(L, field::Plain, Plain, Env);
  writeBool(L, field::Known, Known, Env);
  StorageLocation &OriginField = L.getSyntheticField(field::Origin);
  if (Origin)
    Env.setValue(OriginField, *Origin);
  else
    Env.clearValue(OriginField);
}

void writeContainer(RecordStorageLocation &L, const ContainerFacts &F,
                    Environment &Env) {
  writeBool(L, field::AllPlain, *F.AllPlain, Env);
  writeBool(L, field::AllDTensor, *F.AllDTensor, Env);
  writeBool(L, field::AnyDTensor, *F.AnyDTensor, Env);
  writeBool(L, field::AllKnown, *F.AllKnown, Env);
}

ModuleFacts readModule(const RecordStorageLocation &L, const Environment &Env) {
  return {&readBool(L, field::ModuleDistributed, Env),
          &readBool(L, field::ModuleKnown, Env)};
}

void writeModule(RecordStorageLocation &L, bool Distributed, Environment &Env) {
  Arena &A = Env.arena();
  writeBool(L, field::ModuleDistributed, A.makeLiteral(Distributed), Env);
  writeBool(L, field::ModuleKnown, A.makeLiteral(true), Env);
}

void havocModule(RecordStorageLocation &L, Environment &Env) {
  Env.setValue(L.getSyntheticField(field::ModuleDistributed),
               Env.makeAtomicBoolValue());
  Env.setValue(L.getSyntheticField(field::ModuleKnown),
               Env.makeAtomicBoolValue());
}

void havocTensor(RecordStorageLocation &L, Environment &Env) {
  Env.setValue(L.getSyntheticField(field::Plain), Env.makeAtomicBoolValue());
  Env.setValue(L.getSyntheticField(field::Known), Env.makeAtomicBoolValue());
  Env.clearValue(L.getSyntheticField(field::Origin));
}

void havocContainer(RecordStorageLocation &L, Environment &Env) {
  for (llvm::StringRef Name :
       {field::AllPlain, field::AllDTensor, field::AnyDTensor, field::AllKnown})
    Env.setValue(L.getSyntheticField(Name), Env.makeAtomicBoolValue());
}

} // namespace analysis
} // namespace meshguard
