//===--- TensorTransfer.cpp - What calls do to tensors --------------------===//
//
// Sources of the API table, ops, is_dtensor, OrderedDict items, collectives.
//
//===----------------------------------------------------------------------===//

#include "Provenance/TransferContext.h"
#include "clang/Analysis/FlowSensitive/Value.h"

using namespace clang;
using namespace clang::dataflow;

namespace meshguard {
namespace analysis {

bool isSourceCall(const CallExpr &Call, const ApiIndex &Index) {
  return Index.source(Call.getDirectCallee()) != nullptr;
}

void transferSource(const CallExpr &Call, TransferContext &C) {
  SourceKind Kind = C.Index.source(Call.getDirectCallee())->Kind;
  RecordStorageLocation *L = resultLocation(&Call, C.Env);
  if (!L)
    return;
  Arena &A = C.A;
  if (C.Index.isTensorContainerType(Call.getType())) {
    // E.g. CollectiveGuard::sanitize_args: every element is a DTensor.
    const Formula &True = A.makeLiteral(true), &False = A.makeLiteral(false);
    bool Plain = Kind == SourceKind::Plain;
    writeContainer(*L,
                   {Plain ? &True : &False, Plain ? &False : &True,
                    Plain ? &False : &True, &True},
                   C.Env);
    return;
  }
  if (!C.Index.isTensorType(Call.getType()))
    return;
  Value &Origin =
      C.Env.create<PointerValue>(C.Origins.locationFor(&Call, C.Env));
  writeTensor(*L, A.makeLiteral(Kind == SourceKind::Plain), A.makeLiteral(true),
              &Origin, C.Env);
}

bool isDTensorTestCall(const CallExpr &Call, const ApiIndex &Index) {
  return Index.isDTensorTest(Call.getDirectCallee()) && Call.getNumArgs() == 1;
}

/// `if (is_dtensor(g)) dist::all_reduce_({g})` is followed.
void transferDTensorTest(const CallExpr &Call, TransferContext &C) {
  if (RecordStorageLocation *L = recordLocation(Call.getArg(0), C.Env))
    C.Env.setValue(
        Call, C.A.makeBoolValue(readTensor(*L, C.Env, nullptr).isDTensor(C.A)));
}

/// The object of a call on a torch::OrderedDict item (`item.value()`,
/// `*item`, `item->grad()`'s `item->`), or null.
static const Expr *entryObject(const CallExpr &Call, const ApiIndex &Index) {
  const Expr *Obj = nullptr;
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call))
    Obj = Member->getImplicitObjectArgument();
  else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(&Call);
           Op && Op->getNumArgs() == 1)
    Obj = Op->getArg(0);
  return Obj && Index.isTensorEntryType(Obj->getType()) ? Obj : nullptr;
}

bool isEntryAccess(const CallExpr &Call, const ApiIndex &Index) {
  return entryObject(Call, Index) != nullptr;
}

/// `item.value()`, `*item`, `item->`, `item.pair()` of an OrderedDict item:
/// the item's tensor.
void transferEntryAccess(const CallExpr &Call, TransferContext &C) {
  RecordStorageLocation *Item =
      recordLocation(entryObject(Call, C.Index), C.Env);
  if (!Item)
    return;
  QualType T = Call.getType();
  if (C.Index.isTensorType(T)) {
    if (RecordStorageLocation *Result = resultLocation(&Call, C.Env))
      copyTensor(*Item, *Result, C.Env);
  } else if (isTensorPointer(&Call, C.Index)) {
    auto &Pointee =
        cast<RecordStorageLocation>(C.Env.createObject(T->getPointeeType()));
    copyTensor(*Item, Pointee, C.Env);
    C.Env.setValue(Call, C.Env.create<PointerValue>(Pointee));
  } else if (T->isRecordType()) {
    // pair(): its `second`, when this function reads it.
    if (RecordStorageLocation *Pair = resultLocation(&Call, C.Env))
      for (const auto &[Field, Child] : Pair->children())
        if (auto *R = dyn_cast_or_null<RecordStorageLocation>(Child);
            R && Field->getName() == "second" &&
            C.Index.isTensorType(Field->getType()))
          copyTensor(*Item, *R, C.Env);
  }
}

bool isTensorMethodOp(const CallExpr &Call, const ApiIndex &Index) {
  const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call);
  const Expr *Obj = Member ? Member->getImplicitObjectArgument() : nullptr;
  return Obj &&
         (Index.isTensorType(Obj->getType()) || isTensorPointer(Obj, Index)) &&
         Index.isTensorType(Call.getType());
}

bool isOpFunctionCall(const CallExpr &Call, const ApiIndex &Index) {
  return Index.isOpFunction(Call.getDirectCallee());
}

/// Folds a tensor, container or tensor pointer operand into \p Fold; other
/// operands (scalars, options) do not count.
static void addOperand(ProvenanceFold &Fold, const Expr *E,
                       TransferContext &C) {
  if (C.Index.isTensorType(E->getType())) {
    Fold.add({E, false}, C.Env);
  } else if (C.Index.isTensorContainerType(E->getType())) {
    Fold.add({E, true}, C.Env);
  } else if (isTensorPointer(E, C.Index)) {
    auto *P = C.Env.get<PointerValue>(*E);
    Fold.addAt(P ? dyn_cast<RecordStorageLocation>(&P->getPointeeLoc())
                 : nullptr,
               /*IsContainer=*/false, C.Env);
  }
}

void transferTensorOp(const CallExpr &Call, TransferContext &C) {
  RecordStorageLocation *L = resultLocation(&Call, C.Env);
  if (!L)
    return;
  ProvenanceFold Fold = ProvenanceFold::empty(C.A);
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call))
    addOperand(Fold, Member->getImplicitObjectArgument(), C);
  for (const Expr *Arg : Call.arguments())
    addOperand(Fold, Arg, C);
  if (Fold.NumOperands == 0)
    // No tensor operand at all: a factory the table does not list.
    Fold.FirstOrigin =
        &C.Env.create<PointerValue>(C.Origins.locationFor(&Call, C.Env));
  writeTensor(*L, *Fold.AllPlain, C.A.makeOr(*Fold.AnyDTensor, *Fold.AllKnown),
              Fold.FirstOrigin, C.Env);
}

bool isCollectiveCall(const CallExpr &Call, const ApiIndex &Index) {
  const FunctionDecl *FD = Call.getDirectCallee();
  return Index.meshCollective(FD) || Index.processGroupCollective(FD);
}

} // namespace analysis
} // namespace meshguard
