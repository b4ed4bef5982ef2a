//===--- ModuleTransfer.cpp - What calls do to torch::nn modules ----------===//
//
// A module's fact is whether distribute_module made its parameters DTensors.
// New modules have plain parameters; copies and aliases of holders share a
// module in ways the model does not follow (unknown); calls given a module
// may distribute it, except the accessors listed here.
//
//===----------------------------------------------------------------------===//

#include "Provenance/ModuleConstructors.h"
#include "Provenance/TransferContext.h"
#include "meshguard/Analysis/Provenance/ModuleNavigation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSwitch.h"

using namespace clang;
using namespace clang::dataflow;

namespace meshguard {
namespace analysis {

bool isModuleAccessor(const FunctionDecl &FD, const ApiIndex &Index) {
  OverloadedOperatorKind Op = FD.getOverloadedOperator();
  if (Op == OO_Arrow || Op == OO_Star)
    return true;
  if (Op == OO_Call) {
    // `model(x)` calls forward; a lambda or functor given a module may
    // distribute it.
    const auto *MD = dyn_cast<CXXMethodDecl>(&FD);
    return MD &&
           Index.isModuleType(QualType(MD->getParent()->getTypeForDecl(), 0));
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

void havocModules(const Expr *E, TransferContext &C) {
  for (RecordStorageLocation *L : modulesAlong(E, C.Env, C.Index))
    havocModule(*L, C.Env);
}

static bool isCopyOrMoveAssignment(const FunctionDecl *FD) {
  const auto *MD = dyn_cast_or_null<CXXMethodDecl>(FD);
  return MD &&
         (MD->isCopyAssignmentOperator() || MD->isMoveAssignmentOperator());
}

bool isModuleAssignment(const CallExpr &Call, const ApiIndex &Index) {
  const auto *Op = dyn_cast<CXXOperatorCallExpr>(&Call);
  return Op && isCopyOrMoveAssignment(Call.getDirectCallee()) &&
         Op->getNumArgs() == 2 && Index.isModuleType(Op->getArg(0)->getType());
}

/// `a = b` on module holders: both now share one module, which the model
/// cannot follow, so both become unknown, with the modules containing them
/// (`model->encoder = encoder`). A temporary source shares with nothing that
/// lives on.
void transferModuleAssignment(const CallExpr &Call, TransferContext &C) {
  const Expr *Source = Call.getArg(1);
  havocModules(Call.getArg(0), C);
  if (!isa<MaterializeTemporaryExpr>(Source->IgnoreImpCasts()))
    havocModules(Source, C);
}

bool isDistributeModuleCall(const CallExpr &Call, const ApiIndex &Index) {
  return Index.isDistributeModule(Call.getDirectCallee());
}

/// m's parameters become DTensors. Distributing a submodule
/// (`*model->encoder`) leaves the enclosing module partly distributed:
/// unknown.
void transferDistributeModule(const CallExpr &Call, TransferContext &C) {
  if (Call.getNumArgs() == 0)
    return;
  llvm::SmallVector<RecordStorageLocation *, 4> Chain =
      modulesAlong(Call.getArg(0), C.Env, C.Index);
  for (unsigned I = 0; I < Chain.size(); ++I)
    if (I == 0)
      writeModule(*Chain[I], /*Distributed=*/true, C.Env);
    else
      havocModule(*Chain[I], C.Env);
}

bool isModuleParametersCall(const CallExpr &Call, const ApiIndex &Index) {
  const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call);
  const CXXMethodDecl *MD = Member ? Member->getMethodDecl() : nullptr;
  return MD && MD->getDeclName().isIdentifier() &&
         llvm::is_contained(
             {"parameters", "named_parameters", "buffers", "named_buffers"},
             MD->getName()) &&
         Index.isModuleType(QualType(MD->getParent()->getTypeForDecl(), 0));
}

/// Parameters and buffers: DTensors if m was distributed (distribute_module
/// replicates the buffers, as PyTorch's does), plain if it surely was not.
void transferModuleParameters(const CallExpr &Call, TransferContext &C) {
  const auto &Member = cast<CXXMemberCallExpr>(Call);
  const Expr *Obj = Member.getImplicitObjectArgument();
  RecordStorageLocation *Result = resultLocation(&Call, C.Env);
  if (!Result || !C.Index.isTensorContainerType(Call.getType()))
    return;
  llvm::SmallVector<RecordStorageLocation *, 4> Chain =
      modulesAlong(Obj, C.Env, C.Index);
  if (Chain.empty()) {
    havocContainer(*Result, C.Env);
    return;
  }
  ModuleFacts F = readModule(*Chain.front(), C.Env);
  Arena &A = C.A;
  const Formula &Known = *F.Known, &Dist = *F.Distributed;
  const Formula &DT = A.makeAnd(Known, Dist);
  writeContainer(*Result,
                 {&A.makeAnd(Known, A.makeNot(Dist)), &DT, &DT, &Known}, C.Env);
}

/// libtorch's own modules (torch::nn::Linear, ...) never make DTensors.
static bool isTorchModule(const CXXRecordDecl &Class) {
  return llvm::StringRef(Class.getQualifiedNameAsString())
      .starts_with("torch::");
}

/// A module built here: plain parameters, unless its constructor makes
/// DTensors (then unknown).
static void freshModule(RecordStorageLocation &L, QualType T,
                        TransferContext &C) {
  const CXXRecordDecl *Class = C.Index.moduleClass(T);
  if (Class && !isTorchModule(*Class) &&
      constructorMayMakeDTensors(*Class, C.Index))
    havocModule(L, C.Env);
  else
    writeModule(L, /*Distributed=*/false, C.Env);
}

bool isMakeSharedModule(const CallExpr &Call, const ApiIndex &Index) {
  const FunctionDecl *FD = Call.getDirectCallee();
  return FD && FD->getDeclName().isIdentifier() &&
         FD->getName() == "make_shared" && FD->isInStdNamespace() &&
         Index.isModuleType(Call.getType());
}

void transferMakeSharedModule(const CallExpr &Call, TransferContext &C) {
  if (RecordStorageLocation *L = resultLocation(&Call, C.Env))
    freshModule(*L, Call.getType(), C);
}

bool isModuleConstruction(const CXXConstructExpr &Construct,
                          const ApiIndex &Index) {
  return Construct.getConstructor() && Index.isModuleType(Construct.getType());
}

/// A new module's parameters are plain. A copied holder shares its module
/// with the original: distributing one distributes both, which the model
/// cannot follow, so both become unknown.
void transferModuleConstruction(const CXXConstructExpr &Construct,
                                TransferContext &C) {
  RecordStorageLocation *L = resultLocation(&Construct, C.Env);
  if (!L)
    return;
  bool FromModule = llvm::any_of(Construct.arguments(), [&](const Expr *Arg) {
    return !modulesAlong(Arg, C.Env, C.Index).empty();
  });
  if (!Construct.getConstructor()->isCopyOrMoveConstructor() && !FromModule) {
    freshModule(*L, Construct.getType(), C);
    return;
  }
  // A copy, or a holder made from another one (`std::shared_ptr<Module>
  // base = model.ptr()`): both hold one module.
  havocModule(*L, C.Env);
  for (const Expr *Arg : Construct.arguments())
    havocModules(Arg, C);
}

/// `torch::nn::Module &base = *model;`, `auto *raw = model.get();`: the
/// module can now be reached in ways the model does not follow.
void transferModuleAlias(const VarDecl &VD, TransferContext &C) {
  QualType T = VD.getType();
  if (!VD.getInit() || !(T->isReferenceType() || T->isPointerType()) ||
      T->getPointeeType().isConstQualified())
    return;
  havocModules(VD.getInit(), C);
}

} // namespace analysis
} // namespace meshguard
