//===--- UnknownCallTransfer.cpp - Calls the model does not describe ------===//
//
// What a call the API table does not list may do: make an unknown result,
// modify what it is given by non-const reference or as a non-const object,
// distribute a module it is given. A summary of a function of this TU (see
// Summaries.h) may say it leaves some module arguments alone, and what its
// result is.
//
//===----------------------------------------------------------------------===//

#include "Provenance/TransferContext.h"
#include "meshguard/Analysis/Provenance/FunctionSummary.h"
#include "clang/Analysis/FlowSensitive/Value.h"

using namespace clang;
using namespace clang::dataflow;

namespace meshguard {
namespace analysis {

bool hasNoDirectCallee(const CallExpr &Call, const ApiIndex &) {
  return Call.getDirectCallee() == nullptr;
}

bool isFrameworkCopy(const CallExpr &Call, const ApiIndex &) {
  const FunctionDecl *FD = Call.getDirectCallee();
  const auto *MD = dyn_cast_or_null<CXXMethodDecl>(FD);
  return (MD &&
          (MD->isCopyAssignmentOperator() || MD->isMoveAssignmentOperator())) ||
         Call.isCallToStdMove() || (FD && FD->getBuiltinID() != 0);
}

void transferNothing(const CallExpr &, TransferContext &) {}

/// Whether parameter \p I of \p FD is a module by const reference or
/// pointer: distributing a module replaces its parameters, which a const
/// module does not allow (checkpoint::module_state(const Module &) reads it).
static bool takesConstModule(const FunctionDecl &FD, unsigned I,
                             const ApiIndex &Index) {
  if (I >= FD.getNumParams())
    return false;
  QualType T = FD.getParamDecl(I)->getType();
  if (!T->isReferenceType() && !T->isPointerType())
    return false;
  QualType Pointee = T->getPointeeType();
  return Pointee.isConstQualified() && Index.isModuleType(Pointee);
}

/// Unknown results and modified arguments. \p Summary, when given, may say
/// that FD leaves some module arguments as they were.
static void forgetWhatTheCallMayChange(const CallExpr &Call,
                                       const FunctionDecl *FD,
                                       const FunctionSummary *Summary,
                                       TransferContext &C) {
  const ApiIndex &Index = C.Index;
  // A prvalue result is a fresh object; a glvalue one may alias
  // (std::forward, accessors), and the framework already gives unknown ones
  // fresh values.
  if (Call.isPRValue() && (Index.isTensorType(Call.getType()) ||
                           Index.isTensorContainerType(Call.getType())))
    if (RecordStorageLocation *L = resultLocation(&Call, C.Env))
      havocRecord(*L, 2, C);
  if (!FD)
    return;
  if (!isModuleAccessor(*FD, Index)) {
    bool ArgsAreParams = !isa<CXXOperatorCallExpr>(Call);
    for (unsigned I = 0, N = Call.getNumArgs(); I < N; ++I)
      if (!(Summary && ArgsAreParams && Summary->keepsModule(I)) &&
          !(ArgsAreParams && takesConstModule(*FD, I, Index)))
        havocModules(Call.getArg(I), C);
    if (const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call))
      havocModules(Member->getImplicitObjectArgument(), C);
  }
  if (isa<CXXOperatorCallExpr>(Call) && isa<CXXMethodDecl>(FD)) {
    // The object, argument 0. In-place tensor operators (`t += x`) keep the
    // tensor's provenance.
    if (!cast<CXXMethodDecl>(FD)->isConst() &&
        !Index.isTensorType(Call.getArg(0)->getType()))
      havocExpr(Call.getArg(0), C);
  }
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call))
    if (const CXXMethodDecl *MD = Member->getMethodDecl();
        MD && !MD->isConst() && !MD->isStatic() &&
        !Index.isTensorType(Member->getImplicitObjectArgument()->getType()))
      havocExpr(Member->getImplicitObjectArgument(), C);
  llvm::ArrayRef<const Expr *> Args = parameterArguments(Call);
  for (unsigned P = 0; P < Args.size() && P < FD->getNumParams(); ++P) {
    QualType PT = FD->getParamDecl(P)->getType();
    if (PT->isLValueReferenceType() &&
        !PT.getNonReferenceType().isConstQualified())
      havocExpr(Args[P], C);
  }
}

/// The result of a call to a function of this TU whose summary knows what it
/// returns.
static void writeSummarizedResult(const CallExpr &Call,
                                  const FunctionSummary &Summary,
                                  TransferContext &C) {
  if (!Call.isPRValue() || (Summary.Return != Provenance::Plain &&
                            Summary.Return != Provenance::DTensor))
    return;
  RecordStorageLocation *L = resultLocation(&Call, C.Env);
  if (!L)
    return;
  Value *Origin = nullptr;
  if (Summary.ReturnOrigin)
    Origin = &C.Env.create<PointerValue>(
        C.Origins.locationFor(Summary.ReturnOrigin, C.Env));
  writeTensor(*L, C.A.makeLiteral(Summary.Return == Provenance::Plain),
              C.A.makeLiteral(true), Origin, C.Env);
}

static bool hasModuleArgument(const CallExpr &Call, const ApiIndex &Index) {
  return llvm::any_of(Call.arguments(), [&](const Expr *Arg) {
    return Index.isModuleType(Arg->getType());
  });
}

void transferUnknownCall(const CallExpr &Call, TransferContext &C) {
  const FunctionDecl *FD = Call.getDirectCallee();
  // Summaries are computed on demand: only for calls whose result or module
  // arguments they can say something about.
  bool ReturnsTensor = C.Index.isTensorType(Call.getType());
  const FunctionSummary *Summary =
      FD && C.Summaries && (ReturnsTensor || hasModuleArgument(Call, C.Index))
          ? C.Summaries->get(FD)
          : nullptr;
  forgetWhatTheCallMayChange(Call, FD, Summary, C);
  if (Summary && ReturnsTensor)
    writeSummarizedResult(Call, *Summary, C);
}

} // namespace analysis
} // namespace meshguard
