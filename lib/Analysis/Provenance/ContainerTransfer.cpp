//===--- ContainerTransfer.cpp - What calls do to tensor containers -------===//
//
// Construction, assignment, methods (push_back, clear, element access) and
// range-for loops over std::vector<at::Tensor>, TensorList and OrderedDicts.
//
//===----------------------------------------------------------------------===//

#include "Provenance/LoopVariableWrites.h"
#include "Provenance/TransferContext.h"

using namespace clang;
using namespace clang::dataflow;

namespace meshguard {
namespace analysis {

/// The object of `__range.begin()` names the implicit range variable.
static bool isRangeForObject(const CallExpr *Call) {
  const Expr *Obj = nullptr;
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call))
    Obj = Member->getImplicitObjectArgument();
  const auto *Ref =
      Obj ? dyn_cast<DeclRefExpr>(Obj->IgnoreParenImpCasts()) : nullptr;
  const auto *VD = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  return VD && VD->isImplicit();
}

/// The implicit `__range` variable a range-for iterator (`__begin`) walks.
static const VarDecl *rangeVariable(const Expr *Iterator) {
  const auto *Ref = dyn_cast<DeclRefExpr>(Iterator->IgnoreParenImpCasts());
  const auto *It = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  if (!It || !It->isImplicit() || !It->getInit())
    return nullptr;
  const auto *Begin =
      dyn_cast<CXXMemberCallExpr>(It->getInit()->IgnoreImplicit());
  if (!Begin || !isRangeForObject(Begin))
    return nullptr;
  const auto *RangeRef = cast<DeclRefExpr>(
      Begin->getImplicitObjectArgument()->IgnoreParenImpCasts());
  return cast<VarDecl>(RangeRef->getDecl());
}

/// `for (auto &x : f())`: the range is a temporary only the loop sees.
static bool isTemporaryRange(const Expr *Iterator) {
  const VarDecl *Range = rangeVariable(Iterator);
  const Expr *Init = Range ? Range->getInit() : nullptr;
  if (const auto *Cleanups = dyn_cast_or_null<ExprWithCleanups>(Init))
    Init = Cleanups->getSubExpr();
  return Init && isa<MaterializeTemporaryExpr>(Init);
}

/// The container a range-for iterator (`__begin`) walks.
static RecordStorageLocation *rangeForContainer(const Expr *Iterator,
                                                TransferContext &C) {
  const VarDecl *Range = rangeVariable(Iterator);
  if (!Range || !C.Index.isTensorContainerType(Range->getType()))
    return nullptr;
  return dyn_cast_or_null<RecordStorageLocation>(
      C.Env.getStorageLocation(*Range));
}

/// What an element of a container with facts \p F is: a tensor (or an
/// OrderedDict item) is plain if all are, a DTensor if all are; an inner
/// container of a nested one has the outer facts (an inner vector of
/// DTensors is taken to hold one), known when the outer is all plain or all
/// DTensors.
static void writeElement(RecordStorageLocation &Elem, const ContainerFacts &F,
                         TransferContext &C) {
  QualType T = Elem.getType();
  Arena &A = C.A;
  const Formula &Decided =
      A.makeAnd(*F.AllKnown, A.makeOr(*F.AllPlain, *F.AllDTensor));
  if (C.Index.isTensorType(T) || C.Index.isTensorEntryType(T))
    writeTensor(Elem, *F.AllPlain, Decided, nullptr, C.Env);
  else if (C.Index.isTensorContainerType(T))
    writeContainer(Elem,
                   {F.AllPlain, F.AllDTensor,
                    &A.makeAnd(*F.AllDTensor, A.makeNot(*F.AllPlain)),
                    &Decided},
                   C.Env);
}

/// The element `*__begin` gives, from the container the iterator walks.
static void dereferenceElement(const Expr *Deref, const Expr *Iterator,
                               TransferContext &C) {
  RecordStorageLocation *Container = rangeForContainer(Iterator, C);
  if (!Container)
    return;
  if (RecordStorageLocation *Elem = resultLocation(Deref, C.Env))
    writeElement(*Elem, readContainer(*Container, C.Env), C);
}

bool isElementDereference(const CallExpr &Call, const ApiIndex &Index) {
  const auto *Op = dyn_cast<CXXOperatorCallExpr>(&Call);
  QualType T = Call.getType();
  return Op && Op->getOperator() == OO_Star && Op->getNumArgs() == 1 &&
         (Index.isTensorType(T) || Index.isTensorEntryType(T) ||
          Index.isTensorContainerType(T));
}

void transferElementDereference(const CallExpr &Call, TransferContext &C) {
  dereferenceElement(&Call, Call.getArg(0), C);
}

void transferElementDereference(const UnaryOperator &Deref,
                                TransferContext &C) {
  dereferenceElement(&Deref, Deref.getSubExpr(), C);
}

bool isContainerAssignment(const CallExpr &Call, const ApiIndex &Index) {
  const auto *Op = dyn_cast<CXXOperatorCallExpr>(&Call);
  return Op && Op->getOperator() == OO_Equal && Op->getNumArgs() == 2 &&
         Index.isTensorContainerType(Op->getArg(0)->getType());
}

void transferContainerAssignment(const CallExpr &Call, TransferContext &C) {
  RecordStorageLocation *L = recordLocation(Call.getArg(0), C.Env);
  if (!L)
    return;
  TensorOperands Ops = tensorOperands(Call.getArg(1), C.Index);
  if (!Ops.FromList) {
    havocContainer(*L, C.Env);
    return;
  }
  ProvenanceFold Fold = ProvenanceFold::empty(C.A);
  for (const TensorOperand &Op : Ops.Items)
    Fold.add(Op, C.Env);
  writeContainer(*L, Fold.asContainer(), C.Env);
}

/// The container object of a method call, member or operator alike.
static const Expr *containerObject(const CallExpr &Call,
                                   const ApiIndex &Index) {
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(&Call)) {
    if (Op->getNumArgs() >= 1 &&
        isa_and_nonnull<CXXMethodDecl>(Call.getDirectCallee()) &&
        Index.isTensorContainerType(Op->getArg(0)->getType()))
      return Op->getArg(0);
    return nullptr;
  }
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call)) {
    const Expr *Obj = Member->getImplicitObjectArgument();
    if (Obj && Index.isTensorContainerType(Obj->getType()))
      return Obj;
  }
  return nullptr;
}

bool isContainerMethodCall(const CallExpr &Call, const ApiIndex &Index) {
  return containerObject(Call, Index) != nullptr;
}

void transferContainerMethod(const CallExpr &Call, TransferContext &C) {
  RecordStorageLocation *ObjLoc =
      recordLocation(containerObject(Call, C.Index), C.Env);
  if (!ObjLoc)
    return;
  RecordStorageLocation &Obj = *ObjLoc;
  const auto *MD = cast<CXXMethodDecl>(Call.getDirectCallee());
  llvm::ArrayRef<const Expr *> Args = parameterArguments(Call);
  const ApiIndex &Index = C.Index;
  llvm::StringRef Name;
  if (MD->getDeclName().isIdentifier())
    Name = MD->getName();
  else if (MD->getOverloadedOperator() == OO_Subscript)
    Name = "operator[]";
  bool IsConst = MD->isConst();
  if (Name == "push_back" || Name == "emplace_back") {
    ProvenanceFold Fold = ProvenanceFold::of(readContainer(Obj, C.Env));
    if (Args.size() == 1 && (Index.isTensorType(Args[0]->getType()) ||
                             Index.isTensorEntryType(Args[0]->getType())))
      Fold.add({Args[0], false}, C.Env);
    else if (Args.size() == 1 &&
             Index.isTensorContainerType(Args[0]->getType()))
      Fold.add({Args[0], true}, C.Env); // An inner vector of a nested one.
    else
      Fold.addUnknown(C.A);
    writeContainer(Obj, Fold.asContainer(), C.Env);
    return;
  }
  if (Name == "clear") {
    writeContainer(Obj, ProvenanceFold::empty(C.A).asContainer(), C.Env);
    return;
  }
  if (Name == "reserve" || Name == "shrink_to_fit")
    return; // Capacity only: the elements stay.
  if (Name == "operator[]" || Name == "at" || Name == "front" ||
      Name == "back") {
    if (RecordStorageLocation *Elem = resultLocation(&Call, C.Env))
      writeElement(*Elem, readContainer(Obj, C.Env), C);
    if (!IsConst)
      havocContainer(Obj, C.Env);
    return;
  }
  if (Name == "values" || Name == "items") {
    // An OrderedDict's tensors, as a vector of tensors or of items.
    if (Index.isTensorContainerType(Call.getType()))
      if (RecordStorageLocation *Result = resultLocation(&Call, C.Env))
        writeContainer(*Result, readContainer(Obj, C.Env), C.Env);
    return;
  }
  if (Name == "begin" || Name == "end" || Name == "cbegin" || Name == "cend" ||
      Name == "size" || Name == "empty") {
    // The iterators of a range-for (`__range.begin()`): its loop variable
    // decides whether elements may be written (see
    // transferRangeForVariable).
    if (IsConst || Name == "size" || Name == "empty" || isRangeForObject(&Call))
      return;
  }
  if (!IsConst)
    havocContainer(Obj, C.Env);
}

/// A range-for loop variable bound by non-const reference may be written
/// through: the container becomes unknown when the body may rebind a tensor
/// variable (see LoopVariableWrites) or the variable is not a tensor, unless
/// it is a temporary (each element is read before it can be written, and
/// nothing reads it after).
void transferRangeForVariable(const VarDecl &VD, TransferContext &C) {
  const ApiIndex &Index = C.Index;
  QualType T = VD.getType();
  if (!T->isLValueReferenceType() ||
      T.getNonReferenceType().isConstQualified() || !VD.getInit() ||
      !(Index.isTensorType(T) || Index.isTensorEntryType(T) ||
        Index.isTensorContainerType(T)))
    return;
  const auto *Deref = VD.getInit()->IgnoreImplicit();
  const Expr *Iterator = nullptr;
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Deref);
      Op && Op->getOperator() == OO_Star && Op->getNumArgs() == 1)
    Iterator = Op->getArg(0);
  else if (const auto *U = dyn_cast<UnaryOperator>(Deref);
           U && U->getOpcode() == UO_Deref)
    Iterator = U->getSubExpr();
  // Methods of an inner container (`bucket.push_back`) change what it holds:
  // only a tensor or an OrderedDict item (whose tensor is rebound only
  // through `item.value()`, `*item` or `item = ...`) is decided by
  // mayRebind.
  bool MayChange = C.LoopWrites->mayRebind(VD) ||
                   !(Index.isTensorType(T) || Index.isTensorEntryType(T));
  if (Iterator && MayChange && !isTemporaryRange(Iterator))
    if (RecordStorageLocation *Container = rangeForContainer(Iterator, C))
      havocContainer(*Container, C.Env);
}

bool isContainerConstruction(const CXXConstructExpr &Construct,
                             const ApiIndex &Index) {
  const CXXConstructorDecl *Ctor = Construct.getConstructor();
  return Ctor && !Ctor->isCopyOrMoveConstructor() &&
         Index.isTensorContainerType(Construct.getType());
}

void transferContainerConstruction(const CXXConstructExpr &Construct,
                                   TransferContext &C) {
  const ApiIndex &Index = C.Index;
  RecordStorageLocation *L = resultLocation(&Construct, C.Env);
  if (!L)
    return;
  TensorOperands Ops;
  ProvenanceFold Fold = ProvenanceFold::empty(C.A);
  if (listElements(&Construct, Index, Ops)) {
    for (const TensorOperand &Op : Ops.Items)
      Fold.add(Op, C.Env);
  } else if (Construct.getNumArgs() == 1 &&
             (Index.isTensorType(Construct.getArg(0)->getType()) ||
              Index.isTensorContainerType(Construct.getArg(0)->getType()))) {
    // TensorList(tensor), TensorList(vector).
    Fold.add({Construct.getArg(0),
              Index.isTensorContainerType(Construct.getArg(0)->getType())},
             C.Env);
  } else if (Construct.getNumArgs() >= 2 &&
             Construct.getArg(0)->getType()->isIntegerType() &&
             Index.isTensorType(Construct.getArg(1)->getType())) {
    // std::vector<at::Tensor>(n, t): n copies of t.
    Fold.add({Construct.getArg(1), false}, C.Env);
  } else {
    Fold.addUnknown(C.A);
  }
  writeContainer(*L, Fold.asContainer(), C.Env);
}

} // namespace analysis
} // namespace meshguard
