//===--- TransferContext.cpp - Helpers every transfer function uses -------===//

#include "Provenance/TransferContext.h"
#include "clang/Analysis/FlowSensitive/Value.h"

using namespace clang;
using namespace clang::dataflow;

namespace meshguard {
namespace analysis {

RecordStorageLocation *resultLocation(const Expr *E, Environment &Env) {
  if (E->isPRValue())
    return E->getType()->isRecordType() ? &Env.getResultObjectLocation(*E)
                                        : nullptr;
  if (auto *L =
          dyn_cast_or_null<RecordStorageLocation>(Env.getStorageLocation(*E)))
    return L;
  auto *L = dyn_cast<RecordStorageLocation>(
      &Env.createObject(E->getType().getNonReferenceType()));
  if (L)
    Env.setStorageLocation(*E, *L);
  return L;
}

ProvenanceFold ProvenanceFold::empty(Arena &A) {
  return {&A.makeLiteral(true), &A.makeLiteral(true), &A.makeLiteral(false),
          &A.makeLiteral(true)};
}

ProvenanceFold ProvenanceFold::of(const ContainerFacts &F) {
  return {F.AllPlain, F.AllDTensor, F.AnyDTensor, F.AllKnown};
}

void ProvenanceFold::add(const TensorOperand &Op, const Environment &Env) {
  addAt(recordLocation(Op.E, Env), Op.IsContainer, Env);
}

void ProvenanceFold::addAt(RecordStorageLocation *L, bool IsContainer,
                           const Environment &Env) {
  Arena &A = Env.arena();
  ++NumOperands;
  if (!L) {
    addUnknown(A);
    return;
  }
  if (IsContainer) {
    ContainerFacts F = readContainer(*L, Env);
    AllPlain = &A.makeAnd(*AllPlain, *F.AllPlain);
    AllDTensor = &A.makeAnd(*AllDTensor, *F.AllDTensor);
    AnyDTensor = &A.makeOr(*AnyDTensor, *F.AnyDTensor);
    AllKnown = &A.makeAnd(*AllKnown, *F.AllKnown);
    return;
  }
  TensorFacts F = readTensor(*L, Env, nullptr);
  const Formula &IsDT = F.isDTensor(A);
  AllPlain = &A.makeAnd(*AllPlain, *F.Plain);
  AllDTensor = &A.makeAnd(*AllDTensor, IsDT);
  AnyDTensor = &A.makeOr(*AnyDTensor, IsDT);
  AllKnown = &A.makeAnd(*AllKnown, *F.Known);
  if (!FirstOrigin)
    FirstOrigin = originValue(*L, Env);
}

void ProvenanceFold::addUnknown(Arena &A) {
  const Formula &Fresh = A.makeAtomRef(A.makeAtom());
  AllPlain = &A.makeAnd(*AllPlain, Fresh);
  AllDTensor = &A.makeLiteral(false);
  AnyDTensor = &A.makeOr(*AnyDTensor, A.makeAtomRef(A.makeAtom()));
  AllKnown = &A.makeLiteral(false);
}

bool isTensorPointer(const Expr *E, const ApiIndex &Index) {
  return E->getType()->isPointerType() &&
         Index.isTensorType(E->getType()->getPointeeType());
}

void copyTensor(const RecordStorageLocation &From, RecordStorageLocation &To,
                Environment &Env) {
  TensorFacts F = readTensor(From, Env, nullptr);
  writeTensor(To, *F.Plain, *F.Known, originValue(From, Env), Env);
}

void havocRecord(RecordStorageLocation &L, unsigned Depth, TransferContext &C) {
  QualType T = L.getType();
  if (C.Index.isTensorType(T)) {
    havocTensor(L, C.Env);
    return;
  }
  if (C.Index.isTensorContainerType(T)) {
    havocContainer(L, C.Env);
    return;
  }
  if (Depth == 0)
    return;
  for (const auto &[Field, Child] : L.children())
    if (auto *R = dyn_cast_or_null<RecordStorageLocation>(Child))
      havocRecord(*R, Depth - 1, C);
}

void havocExpr(const Expr *E, TransferContext &C) {
  if (RecordStorageLocation *L = recordLocation(E, C.Env))
    havocRecord(*L, 2, C);
}

} // namespace analysis
} // namespace meshguard
