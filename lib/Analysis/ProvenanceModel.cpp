//===--- ProvenanceModel.cpp - DTensor-or-plain, as a dataflow model ------===//

#include "meshguard/Analysis/ProvenanceModel.h"
#include "meshguard/Analysis/DeadValues.h"
#include "meshguard/Analysis/ModuleConstructors.h"
#include "meshguard/Analysis/Summaries.h"
#include "meshguard/Analysis/TensorOperands.h"
#include "clang/AST/ExprCXX.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Analysis/FlowSensitive/Arena.h"
#include "clang/Analysis/FlowSensitive/Value.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSwitch.h"

using namespace clang;
using namespace clang::ast_matchers;
using namespace clang::dataflow;

namespace meshguard {
namespace analysis {

namespace {

using State = TransferState<NoopLattice>;

/// The location of the tensor or container a call returns: the result object
/// of a prvalue, or (for a reference result) the location the framework gave
/// the glvalue, created if it gave none.
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

/// Provenance combined over the operands of an element-wise view: a value is
/// known when it is known to be a DTensor somewhere or every part is known.
struct Combined {
  const Formula *AllPlain;
  const Formula *AllDTensor;
  const Formula *AnyDTensor;
  const Formula *AllKnown;
  Value *FirstOrigin = nullptr;
  unsigned NumOperands = 0;
};

/// Calls on a module that do not distribute it: accessors, forward, the
/// training-mode switches. Any other call given a module (a user's own
/// `shard(model)`) may distribute it, so the module becomes unknown.
/// `model(x)` calls forward; a lambda or functor given a module may
/// distribute it.
bool isModuleAccessor(const FunctionDecl &FD, const ApiIndex &Index) {
  OverloadedOperatorKind Op = FD.getOverloadedOperator();
  if (Op == OO_Arrow || Op == OO_Star)
    return true;
  if (Op == OO_Call) {
    const auto *MD = dyn_cast<CXXMethodDecl>(&FD);
    return MD && Index.isModuleType(QualType(MD->getParent()->getTypeForDecl(), 0));
  }
  if (!FD.getDeclName().isIdentifier())
    return isa<CXXConversionDecl>(FD); // operator bool
  // Not children(), modules() and the like: they hand out submodules that
  // can be distributed through the copies.
  return llvm::StringSwitch<bool>(FD.getName())
      .Cases("parameters", "named_parameters", "forward", "zero_grad", "train",
             "eval", "is_training", true)
      .Cases("buffers", "named_buffers", true)
      .Cases("name", "pretty_print", "get", "ptr", "is_empty", true)
      .Default(false);
}

/// `m.parameters()` or `m.named_parameters()` (an OrderedDict by name).
bool isModuleParameters(const CallExpr *Call, const ApiIndex &Index) {
  const auto *Member = dyn_cast<CXXMemberCallExpr>(Call);
  const CXXMethodDecl *MD = Member ? Member->getMethodDecl() : nullptr;
  return MD && MD->getDeclName().isIdentifier() &&
         (MD->getName() == "parameters" ||
          MD->getName() == "named_parameters") &&
         Index.isModuleType(QualType(MD->getParent()->getTypeForDecl(), 0));
}

/// The object of a call on a torch::OrderedDict item (`item.value()`,
/// `*item`, `item->grad()`'s `item->`), or null.
const Expr *entryObject(const CallExpr *Call, const ApiIndex &Index) {
  const Expr *Obj = nullptr;
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call))
    Obj = Member->getImplicitObjectArgument();
  else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call);
           Op && Op->getNumArgs() == 1)
    Obj = Op->getArg(0);
  return Obj && Index.isTensorEntryType(Obj->getType()) ? Obj : nullptr;
}

/// A tensor method called through a pointer (`item->grad()`).
bool isTensorPointer(const Expr *E, const ApiIndex &Index) {
  return E->getType()->isPointerType() &&
         Index.isTensorType(E->getType()->getPointeeType());
}

bool hasModuleArgument(const CallExpr *Call, const ApiIndex &Index) {
  return llvm::any_of(Call->arguments(), [&](const Expr *Arg) {
    return Index.isModuleType(Arg->getType());
  });
}

/// libtorch's own modules (torch::nn::Linear, ...) never make DTensors.
bool isTorchModule(const CXXRecordDecl &Class) {
  return llvm::StringRef(Class.getQualifiedNameAsString()).starts_with("torch::");
}

bool isMakeShared(const FunctionDecl &FD) {
  return FD.getDeclName().isIdentifier() && FD.getName() == "make_shared" &&
         FD.isInStdNamespace();
}

class Transfer {
public:
  Transfer(const ApiIndex &Index, OriginTable &Origins, Environment &Env)
      : Index(Index), Origins(Origins), Env(Env), A(Env.arena()) {}

  Combined empty() {
    return {&A.makeLiteral(true), &A.makeLiteral(true), &A.makeLiteral(false),
            &A.makeLiteral(true)};
  }

  /// Folds one operand (tensor or container) into \p C.
  void add(Combined &C, const TensorOperand &Op) {
    addAt(C, recordLocation(Op.E, Env), Op.IsContainer);
  }

  /// Folds the tensor or container at \p L (null: unknown) into \p C.
  void addAt(Combined &C, RecordStorageLocation *L, bool IsContainer) {
    ++C.NumOperands;
    if (!L) {
      addUnknown(C);
      return;
    }
    if (IsContainer) {
      ContainerFacts F = readContainer(*L, Env);
      C.AllPlain = &A.makeAnd(*C.AllPlain, *F.AllPlain);
      C.AllDTensor = &A.makeAnd(*C.AllDTensor, *F.AllDTensor);
      C.AnyDTensor = &A.makeOr(*C.AnyDTensor, *F.AnyDTensor);
      C.AllKnown = &A.makeAnd(*C.AllKnown, *F.AllKnown);
      return;
    }
    TensorFacts F = readTensor(*L, Env, nullptr);
    const Formula &IsDT = F.isDTensor(A);
    C.AllPlain = &A.makeAnd(*C.AllPlain, *F.Plain);
    C.AllDTensor = &A.makeAnd(*C.AllDTensor, IsDT);
    C.AnyDTensor = &A.makeOr(*C.AnyDTensor, IsDT);
    C.AllKnown = &A.makeAnd(*C.AllKnown, *F.Known);
    if (!C.FirstOrigin)
      C.FirstOrigin = originValue(*L, Env);
  }

  void addUnknown(Combined &C) {
    const Formula &Fresh = A.makeAtomRef(A.makeAtom());
    C.AllPlain = &A.makeAnd(*C.AllPlain, Fresh);
    C.AllDTensor = &A.makeLiteral(false);
    C.AnyDTensor = &A.makeOr(*C.AnyDTensor, A.makeAtomRef(A.makeAtom()));
    C.AllKnown = &A.makeLiteral(false);
  }

  void writeAsContainer(RecordStorageLocation &L, const Combined &C) {
    writeContainer(L, {C.AllPlain, C.AllDTensor, C.AnyDTensor, C.AllKnown},
                   Env);
  }

  /// A tensor op: a DTensor if an operand is one, plain if all operands are.
  void writeAsOpResult(RecordStorageLocation &L, const Combined &C) {
    writeTensor(L, *C.AllPlain, A.makeOr(*C.AnyDTensor, *C.AllKnown),
                C.FirstOrigin, Env);
  }

  void source(const CallExpr *Call, SourceKind Kind) {
    RecordStorageLocation *L = resultLocation(Call, Env);
    if (!L)
      return;
    if (Index.isTensorContainerType(Call->getType())) {
      // E.g. CollectiveGuard::sanitize_args: every element is a DTensor.
      const Formula &True = A.makeLiteral(true), &False = A.makeLiteral(false);
      bool Plain = Kind == SourceKind::Plain;
      writeContainer(*L,
                     {Plain ? &True : &False, Plain ? &False : &True,
                      Plain ? &False : &True, &True},
                     Env);
      return;
    }
    if (!Index.isTensorType(Call->getType()))
      return;
    Value &Origin = Env.create<PointerValue>(Origins.locationFor(Call, Env));
    writeTensor(*L, A.makeLiteral(Kind == SourceKind::Plain),
                A.makeLiteral(true), &Origin, Env);
  }

  /// The result of a call to a function of this TU whose summary knows what
  /// it returns.
  void summarizedResult(const CallExpr *Call, const FunctionSummary &Sum) {
    if (!Call->isPRValue() ||
        (Sum.Return != Provenance::Plain && Sum.Return != Provenance::DTensor))
      return;
    RecordStorageLocation *L = resultLocation(Call, Env);
    if (!L)
      return;
    Value *Origin = nullptr;
    if (Sum.ReturnOrigin)
      Origin =
          &Env.create<PointerValue>(Origins.locationFor(Sum.ReturnOrigin, Env));
    writeTensor(*L, A.makeLiteral(Sum.Return == Provenance::Plain),
                A.makeLiteral(true), Origin, Env);
  }

  void op(const CallExpr *Call) {
    RecordStorageLocation *L = resultLocation(Call, Env);
    if (!L)
      return;
    Combined C = empty();
    if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call))
      addOperand(C, Member->getImplicitObjectArgument());
    for (const Expr *Arg : Call->arguments())
      addOperand(C, Arg);
    if (C.NumOperands == 0) {
      // No tensor operand at all: a factory the table does not list.
      Value &Origin = Env.create<PointerValue>(Origins.locationFor(Call, Env));
      C.FirstOrigin = &Origin;
    }
    writeAsOpResult(*L, C);
  }

  /// A method of a container: \p Args are the call's arguments without the
  /// object (member and operator calls alike).
  void containerMethod(const CallExpr *Call, const CXXMethodDecl *MD,
                       RecordStorageLocation &Obj,
                       llvm::ArrayRef<const Expr *> Args) {
    llvm::StringRef Name;
    if (MD->getDeclName().isIdentifier())
      Name = MD->getName();
    else if (MD->getOverloadedOperator() == OO_Subscript)
      Name = "operator[]";
    bool IsConst = MD->isConst();
    if (Name == "push_back" || Name == "emplace_back") {
      ContainerFacts Old = readContainer(Obj, Env);
      Combined C{Old.AllPlain, Old.AllDTensor, Old.AnyDTensor, Old.AllKnown};
      if (Args.size() == 1 && (Index.isTensorType(Args[0]->getType()) ||
                               Index.isTensorEntryType(Args[0]->getType())))
        add(C, {Args[0], false});
      else if (Args.size() == 1 &&
               Index.isTensorContainerType(Args[0]->getType()))
        add(C, {Args[0], true}); // An inner vector of a nested one.
      else
        addUnknown(C);
      writeAsContainer(Obj, C);
      return;
    }
    if (Name == "clear") {
      writeAsContainer(Obj, empty());
      return;
    }
    if (Name == "reserve" || Name == "shrink_to_fit")
      return; // Capacity only: the elements stay.
    if (Name == "operator[]" || Name == "at" || Name == "front" ||
        Name == "back") {
      if (RecordStorageLocation *Elem = resultLocation(Call, Env))
        writeElement(*Elem, readContainer(Obj, Env));
      if (!IsConst)
        havocContainer(Obj, Env);
      return;
    }
    if (Name == "values" || Name == "items") {
      // An OrderedDict's tensors, as a vector of tensors or of items.
      if (Index.isTensorContainerType(Call->getType()))
        if (RecordStorageLocation *Result = resultLocation(Call, Env))
          writeContainer(*Result, readContainer(Obj, Env), Env);
      return;
    }
    if (Name == "begin" || Name == "end" || Name == "cbegin" ||
        Name == "cend" || Name == "size" || Name == "empty") {
      // The iterators of a range-for (`__range.begin()`): its loop variable
      // decides whether elements may be written (see rangeForVariable).
      if (IsConst || Name == "size" || Name == "empty" ||
          isRangeForObject(Call))
        return;
    }
    if (!IsConst)
      havocContainer(Obj, Env);
  }

  /// `*__begin` of a range-for over a container: an element of it.
  void rangeForElement(const Expr *Deref, const Expr *Iterator) {
    RecordStorageLocation *Container = rangeForContainer(Iterator);
    if (!Container)
      return;
    if (RecordStorageLocation *Elem = resultLocation(Deref, Env))
      writeElement(*Elem, readContainer(*Container, Env));
  }

  /// What an element of a container with facts \p F is: a tensor (or an
  /// OrderedDict item) is plain if all are, a DTensor if all are; an inner
  /// container of a nested one has the outer facts (an inner vector of
  /// DTensors is taken to hold one), known when the outer is all plain or
  /// all DTensors.
  void writeElement(RecordStorageLocation &Elem, const ContainerFacts &F) {
    QualType T = Elem.getType();
    const Formula &Decided =
        A.makeAnd(*F.AllKnown, A.makeOr(*F.AllPlain, *F.AllDTensor));
    if (Index.isTensorType(T) || Index.isTensorEntryType(T))
      writeTensor(Elem, *F.AllPlain, Decided, nullptr, Env);
    else if (Index.isTensorContainerType(T))
      writeContainer(Elem,
                     {F.AllPlain, F.AllDTensor,
                      &A.makeAnd(*F.AllDTensor, A.makeNot(*F.AllPlain)),
                      &Decided},
                     Env);
  }

  /// `item.value()`, `*item`, `item->`, `item.pair()` of an OrderedDict
  /// item: the item's tensor.
  void entryAccess(const CallExpr *Call, const Expr *Obj) {
    RecordStorageLocation *Item = recordLocation(Obj, Env);
    if (!Item)
      return;
    QualType T = Call->getType();
    if (Index.isTensorType(T)) {
      if (RecordStorageLocation *Result = resultLocation(Call, Env))
        copyTensor(*Item, *Result);
    } else if (isTensorPointer(Call, Index)) {
      auto &Pointee =
          cast<RecordStorageLocation>(Env.createObject(T->getPointeeType()));
      copyTensor(*Item, Pointee);
      Env.setValue(*Call, Env.create<PointerValue>(Pointee));
    } else if (T->isRecordType()) {
      // pair(): its `second`, when this function reads it.
      if (RecordStorageLocation *Pair = resultLocation(Call, Env))
        for (const auto &[Field, Child] : Pair->children())
          if (auto *R = dyn_cast_or_null<RecordStorageLocation>(Child);
              R && Field->getName() == "second" &&
              Index.isTensorType(Field->getType()))
            copyTensor(*Item, *R);
    }
  }

  /// A range-for loop variable bound by non-const reference may be written
  /// through: the container becomes unknown when the body may rebind a
  /// tensor variable (\p MayRebind, see LoopVariableWrites) or the variable
  /// is not a tensor, unless it is a
  /// temporary (each element is read before it can be written, and nothing
  /// reads it after).
  void rangeForVariable(const VarDecl &VD, bool MayRebind) {
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
    // Methods of an inner container (`bucket.push_back`) change what it
    // holds: only a tensor or an OrderedDict item (whose tensor is rebound
    // only through `item.value()`, `*item` or `item = ...`) is decided by
    // MayRebind.
    bool MayChange =
        MayRebind || !(Index.isTensorType(T) || Index.isTensorEntryType(T));
    if (Iterator && MayChange && !isTemporaryRange(Iterator))
      if (RecordStorageLocation *Container = rangeForContainer(Iterator))
        havocContainer(*Container, Env);
  }

  /// After a call the model does not know: results are unknown, and what it
  /// may modify (non-const references, the object of a non-const method) too.
  /// \p Summary, when given, may say that FD leaves some module arguments
  /// as they were.
  void unknownCall(const CallExpr *Call, const FunctionDecl *FD,
                   const FunctionSummary *Summary = nullptr) {
    // A prvalue result is a fresh object; a glvalue one may alias
    // (std::forward, accessors), and the framework already gives unknown ones
    // fresh values.
    if (Call->isPRValue() && (Index.isTensorType(Call->getType()) ||
                              Index.isTensorContainerType(Call->getType())))
      if (RecordStorageLocation *L = resultLocation(Call, Env))
        havocRecord(*L, 2);
    if (!FD)
      return;
    if (!isModuleAccessor(*FD, Index)) {
      bool ArgsAreParams = !isa<CXXOperatorCallExpr>(Call);
      for (unsigned I = 0, N = Call->getNumArgs(); I < N; ++I)
        if (!(Summary && ArgsAreParams && Summary->keepsModule(I)))
          havocModules(Call->getArg(I));
      if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call))
        havocModules(Member->getImplicitObjectArgument());
    }
    unsigned Shift = 0;
    if (isa<CXXOperatorCallExpr>(Call) && isa<CXXMethodDecl>(FD)) {
      // The object is argument 0 of an operator call on a method.
      Shift = 1;
      // In-place tensor operators (`t += x`) keep the tensor's provenance.
      if (!cast<CXXMethodDecl>(FD)->isConst() &&
          !Index.isTensorType(Call->getArg(0)->getType()))
        havocExpr(Call->getArg(0));
    }
    if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call))
      if (const CXXMethodDecl *MD = Member->getMethodDecl();
          MD && !MD->isConst() && !MD->isStatic() &&
          !Index.isTensorType(Member->getImplicitObjectArgument()->getType()))
        havocExpr(Member->getImplicitObjectArgument());
    for (unsigned I = Shift, N = Call->getNumArgs(); I < N; ++I) {
      unsigned P = I - Shift;
      if (P >= FD->getNumParams())
        break;
      QualType PT = FD->getParamDecl(P)->getType();
      if (PT->isLValueReferenceType() &&
          !PT.getNonReferenceType().isConstQualified())
        havocExpr(Call->getArg(I));
    }
  }

  void construct(const CXXConstructExpr *Construct) {
    const CXXConstructorDecl *Ctor = Construct->getConstructor();
    if (Ctor && Index.isModuleType(Construct->getType())) {
      constructModule(Construct, *Ctor);
      return;
    }
    if (!Ctor || Ctor->isCopyOrMoveConstructor())
      return; // The framework copies the record, synthetic fields included.
    if (!Index.isTensorContainerType(Construct->getType()))
      return;
    RecordStorageLocation *L = resultLocation(Construct, Env);
    if (!L)
      return;
    TensorOperands Ops;
    Combined C = empty();
    if (listElements(Construct, Index, Ops)) {
      for (const TensorOperand &Op : Ops.Items)
        add(C, Op);
    } else if (Construct->getNumArgs() == 1 &&
               (Index.isTensorType(Construct->getArg(0)->getType()) ||
                Index.isTensorContainerType(Construct->getArg(0)->getType()))) {
      // TensorList(tensor), TensorList(vector).
      add(C, {Construct->getArg(0),
              Index.isTensorContainerType(Construct->getArg(0)->getType())});
    } else if (Construct->getNumArgs() >= 2 &&
               Construct->getArg(0)->getType()->isIntegerType() &&
               Index.isTensorType(Construct->getArg(1)->getType())) {
      // std::vector<at::Tensor>(n, t): n copies of t.
      add(C, {Construct->getArg(1), false});
    } else {
      addUnknown(C);
    }
    writeAsContainer(*L, C);
  }

  void assignContainer(const CXXOperatorCallExpr *Call) {
    RecordStorageLocation *L = recordLocation(Call->getArg(0), Env);
    if (!L)
      return;
    TensorOperands Ops = tensorOperands(Call->getArg(1), Index);
    if (!Ops.FromList) {
      havocContainer(*L, Env);
      return;
    }
    Combined C = empty();
    for (const TensorOperand &Op : Ops.Items)
      add(C, Op);
    writeAsContainer(*L, C);
  }

  /// A new module's parameters are plain. A copied holder shares its module
  /// with the original: distributing one distributes both, which the model
  /// cannot follow, so both become unknown.
  void constructModule(const CXXConstructExpr *Construct,
                       const CXXConstructorDecl &Ctor) {
    RecordStorageLocation *L = resultLocation(Construct, Env);
    if (!L)
      return;
    bool FromModule =
        llvm::any_of(Construct->arguments(), [this](const Expr *Arg) {
          return !modulesAlong(Arg, Env, Index).empty();
        });
    if (!Ctor.isCopyOrMoveConstructor() && !FromModule) {
      freshModule(*L, Construct->getType());
      return;
    }
    // A copy, or a holder made from another one (`std::shared_ptr<Module>
    // base = model.ptr()`): both hold one module.
    havocModule(*L, Env);
    for (const Expr *Arg : Construct->arguments())
      havocModules(Arg);
  }

  /// A module built here: plain parameters, unless its constructor makes
  /// DTensors (then unknown).
  void freshModule(RecordStorageLocation &L, QualType T) {
    const CXXRecordDecl *Class = Index.moduleClass(T);
    if (Class && !isTorchModule(*Class) &&
        constructorMayMakeDTensors(*Class, Index))
      havocModule(L, Env);
    else
      writeModule(L, /*Distributed=*/false, Env);
  }

  /// `std::make_shared<Net>(...)`: a new module.
  void newModule(const CallExpr *Call) {
    if (RecordStorageLocation *L = resultLocation(Call, Env))
      freshModule(*L, Call->getType());
  }

  /// `torch::nn::Module &base = *model;`, `auto *raw = model.get();`: the
  /// module can now be reached in ways the model does not follow.
  void moduleAlias(const VarDecl &VD) {
    QualType T = VD.getType();
    if (!VD.getInit() || !(T->isReferenceType() || T->isPointerType()) ||
        T->getPointeeType().isConstQualified())
      return;
    havocModules(VD.getInit());
  }

  /// `meshguard::is_dtensor(t)`: the result is t's provenance, so code that
  /// tests it (`if (is_dtensor(g)) dist::all_reduce_({g})`) is followed.
  void dtensorTest(const CallExpr *Call) {
    if (RecordStorageLocation *L = recordLocation(Call->getArg(0), Env))
      Env.setValue(*Call, A.makeBoolValue(
                              readTensor(*L, Env, nullptr).isDTensor(A)));
  }

  /// `meshguard::distribute_module(m, mesh)`: m's parameters become DTensors.
  /// Distributing a submodule (`*model->encoder`) leaves the enclosing
  /// module partly distributed: unknown.
  void distributeModule(const CallExpr *Call) {
    if (Call->getNumArgs() == 0)
      return;
    llvm::SmallVector<RecordStorageLocation *, 4> Chain =
        modulesAlong(Call->getArg(0), Env, Index);
    for (unsigned I = 0; I < Chain.size(); ++I)
      if (I == 0)
        writeModule(*Chain[I], /*Distributed=*/true, Env);
      else
        havocModule(*Chain[I], Env);
  }

  /// `m.parameters()`, `m->parameters()`: DTensors if m was distributed,
  /// plain if it surely was not.
  void moduleParameters(const CallExpr *Call, const Expr *Obj) {
    RecordStorageLocation *Result = resultLocation(Call, Env);
    if (!Result || !Index.isTensorContainerType(Call->getType()))
      return;
    llvm::SmallVector<RecordStorageLocation *, 4> Chain =
        modulesAlong(Obj, Env, Index);
    if (Chain.empty()) {
      havocContainer(*Result, Env);
      return;
    }
    ModuleFacts F = readModule(*Chain.front(), Env);
    const Formula &Known = *F.Known, &Dist = *F.Distributed;
    const Formula &DT = A.makeAnd(Known, Dist);
    writeContainer(*Result,
                   {&A.makeAnd(Known, A.makeNot(Dist)), &DT, &DT, &Known}, Env);
  }

  /// `a = b` on module holders: both now share one module, which the model
  /// cannot follow, so both become unknown, with the modules containing
  /// them (`model->encoder = encoder`). A temporary source shares with
  /// nothing that lives on.
  void assignModule(const Expr *Target, const Expr *Source) {
    havocModules(Target);
    if (!isa<MaterializeTemporaryExpr>(Source->IgnoreImpCasts()))
      havocModules(Source);
  }

  /// Forgets what is known about every module \p E reaches.
  void havocModules(const Expr *E) {
    for (RecordStorageLocation *L : modulesAlong(E, Env, Index))
      havocModule(*L, Env);
  }

private:
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
  RecordStorageLocation *rangeForContainer(const Expr *Iterator) {
    const VarDecl *Range = rangeVariable(Iterator);
    if (!Range || !Index.isTensorContainerType(Range->getType()))
      return nullptr;
    return dyn_cast_or_null<RecordStorageLocation>(
        Env.getStorageLocation(*Range));
  }

  void addOperand(Combined &C, const Expr *E) {
    if (Index.isTensorType(E->getType()))
      add(C, {E, false});
    else if (Index.isTensorContainerType(E->getType()))
      add(C, {E, true});
    else if (isTensorPointer(E, Index))
      addPointee(C, E);
  }

  /// Folds the tensor \p Ptr points to into \p C.
  void addPointee(Combined &C, const Expr *Ptr) {
    auto *P = Env.get<PointerValue>(*Ptr);
    addAt(C, P ? dyn_cast<RecordStorageLocation>(&P->getPointeeLoc()) : nullptr,
          /*IsContainer=*/false);
  }

  void copyTensor(const RecordStorageLocation &From,
                  RecordStorageLocation &To) {
    TensorFacts F = readTensor(From, Env, nullptr);
    writeTensor(To, *F.Plain, *F.Known, originValue(From, Env), Env);
  }

  void havocExpr(const Expr *E) {
    if (RecordStorageLocation *L = recordLocation(E, Env))
      havocRecord(*L, 2);
  }

  /// Forgets the provenance of \p L and of the tensors it holds as fields.
  void havocRecord(RecordStorageLocation &L, unsigned Depth) {
    QualType T = L.getType();
    if (Index.isTensorType(T)) {
      havocTensor(L, Env);
      return;
    }
    if (Index.isTensorContainerType(T)) {
      havocContainer(L, Env);
      return;
    }
    if (Depth == 0)
      return;
    for (const auto &[Field, Child] : L.children())
      if (auto *R = dyn_cast_or_null<RecordStorageLocation>(Child))
        havocRecord(*R, Depth - 1);
  }

  const ApiIndex &Index;
  OriginTable &Origins;
  Environment &Env;
  Arena &A;
};

bool isCopyOrMoveAssignment(const FunctionDecl *FD) {
  const auto *MD = dyn_cast_or_null<CXXMethodDecl>(FD);
  return MD &&
         (MD->isCopyAssignmentOperator() || MD->isMoveAssignmentOperator());
}

} // namespace

ProvenanceModel::ProvenanceModel(ASTContext &Ctx, Environment &Env,
                                 const ApiIndex &Index, OriginTable &Origins,
                                 SummaryProvider *Summaries)
    : DataflowAnalysis<ProvenanceModel, NoopLattice>(Ctx) {
  Env.getDataflowAnalysisContext().setSyntheticFieldCallback([&Index, &Ctx](
                                                                 QualType T) {
    // An OrderedDict item carries the provenance of its tensor.
    return syntheticFieldsFor(
        Index.isTensorEntryType(T) ? Index.entryTensorType(T) : T, Index, Ctx);
  });

  const ApiIndex *Idx = &Index;
  OriginTable *Orig = &Origins;
  TransferSwitch =
      CFGMatchSwitchBuilder<State>()
          .CaseOfCFGStmt<CallExpr>(
              callExpr(),
              [Idx, Orig, Summaries](const CallExpr *Call,
                                     const MatchFinder::MatchResult &,
                                     State &S) {
                Transfer T(*Idx, *Orig, S.Env);
                const FunctionDecl *FD = Call->getDirectCallee();
                if (!FD) {
                  T.unknownCall(Call, nullptr);
                  return;
                }
                if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call);
                    Op && isCopyOrMoveAssignment(FD) && Op->getNumArgs() == 2 &&
                    Idx->isModuleType(Op->getArg(0)->getType())) {
                  T.assignModule(Op->getArg(0), Op->getArg(1));
                  return;
                }
                if (isCopyOrMoveAssignment(FD) || Call->isCallToStdMove() ||
                    FD->getBuiltinID() != 0)
                  return; // The framework copies or forwards the record.
                if (Idx->isDistributeModule(FD)) {
                  T.distributeModule(Call);
                  return;
                }
                if (Idx->isDTensorTest(FD) && Call->getNumArgs() == 1) {
                  T.dtensorTest(Call);
                  return;
                }
                if (isModuleParameters(Call, *Idx)) {
                  T.moduleParameters(Call, cast<CXXMemberCallExpr>(Call)
                                               ->getImplicitObjectArgument());
                  return;
                }
                if (isMakeShared(*FD) && Idx->isModuleType(Call->getType())) {
                  T.newModule(Call);
                  return;
                }
                if (const SourceEntry *Source = Idx->source(FD)) {
                  T.source(Call, Source->Kind);
                  return;
                }
                if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call);
                    Op && Op->getOperator() == OO_Equal &&
                    Op->getNumArgs() == 2 &&
                    Idx->isTensorContainerType(Op->getArg(0)->getType())) {
                  T.assignContainer(Op);
                  return;
                }
                if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call);
                    Op && Op->getNumArgs() >= 1 && isa<CXXMethodDecl>(FD) &&
                    Idx->isTensorContainerType(Op->getArg(0)->getType())) {
                  if (RecordStorageLocation *L =
                          recordLocation(Op->getArg(0), S.Env))
                    T.containerMethod(Call, cast<CXXMethodDecl>(FD), *L,
                                      llvm::ArrayRef(Op->getArgs() + 1,
                                                     Op->getNumArgs() - 1));
                  return;
                }
                if (const Expr *Item = entryObject(Call, *Idx)) {
                  T.entryAccess(Call, Item);
                  return;
                }
                if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call)) {
                  const Expr *Obj = Member->getImplicitObjectArgument();
                  if (Obj && Idx->isTensorContainerType(Obj->getType())) {
                    if (RecordStorageLocation *L = recordLocation(Obj, S.Env))
                      T.containerMethod(Call, Member->getMethodDecl(), *L,
                                        llvm::ArrayRef(Member->getArgs(),
                                                       Member->getNumArgs()));
                    return;
                  }
                  if (Obj &&
                      (Idx->isTensorType(Obj->getType()) ||
                       isTensorPointer(Obj, *Idx)) &&
                      Idx->isTensorType(Call->getType())) {
                    T.op(Call);
                    return;
                  }
                }
                if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call);
                    Op && Op->getOperator() == OO_Star &&
                    Op->getNumArgs() == 1 &&
                    (Idx->isTensorType(Call->getType()) ||
                     Idx->isTensorEntryType(Call->getType()) ||
                     Idx->isTensorContainerType(Call->getType()))) {
                  T.rangeForElement(Call, Op->getArg(0));
                  return;
                }
                if (Idx->isOpFunction(FD)) {
                  T.op(Call);
                  return;
                }
                if (Idx->meshCollective(FD) || Idx->processGroupCollective(FD))
                  return; // Collectives keep their inputs' provenance.
                // Summaries are computed on demand: only for calls whose
                // result or module arguments they can say something about.
                const FunctionSummary *Sum =
                    Summaries && (Idx->isTensorType(Call->getType()) ||
                                  hasModuleArgument(Call, *Idx))
                        ? Summaries->get(FD)
                        : nullptr;
                T.unknownCall(Call, FD, Sum);
                if (Sum && Idx->isTensorType(Call->getType()))
                  T.summarizedResult(Call, *Sum);
              })
          .CaseOfCFGStmt<UnaryOperator>(
              unaryOperator(hasOperatorName("*")),
              [Idx, Orig](const UnaryOperator *Deref,
                          const MatchFinder::MatchResult &, State &S) {
                Transfer(*Idx, *Orig, S.Env)
                    .rangeForElement(Deref, Deref->getSubExpr());
              })
          .CaseOfCFGStmt<DeclStmt>(
              declStmt(),
              [Idx, Orig, Loops = LoopWrites.get()](
                  const DeclStmt *DS, const MatchFinder::MatchResult &,
                  State &S) {
                for (const Decl *D : DS->decls()) {
                  const auto *VD = dyn_cast<VarDecl>(D);
                  if (!VD)
                    continue;
                  if (VD->isCXXForRangeDecl())
                    Transfer(*Idx, *Orig, S.Env)
                        .rangeForVariable(*VD, Loops->mayRebind(*VD));
                  else
                    Transfer(*Idx, *Orig, S.Env).moduleAlias(*VD);
                }
              })
          .CaseOfCFGStmt<CXXConstructExpr>(
              cxxConstructExpr(),
              [Idx, Orig](const CXXConstructExpr *Construct,
                          const MatchFinder::MatchResult &, State &S) {
                Transfer(*Idx, *Orig, S.Env).construct(Construct);
              })
          .Build();
}

void ProvenanceModel::transfer(const CFGElement &Elt, NoopLattice &L,
                               Environment &Env) {
  const Stmt *Current = nullptr;
  if (auto S = Elt.getAs<CFGStmt>())
    Current = S->getStmt();
  if (!FirstStmt)
    FirstStmt = Current;
  if (EntryRefinement && Current && Current == FirstStmt)
    EntryRefinement(Env);
  if (EntryHook) {
    EntryHook(Env);
    EntryHook = nullptr;
  }
  State S(L, Env);
  TransferSwitch(Elt, getASTContext(), S);
  if (Dead)
    Dead->releaseAfter(Elt, Env);
}

} // namespace analysis
} // namespace meshguard
