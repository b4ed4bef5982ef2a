//===--- ScalarLikeTensors.cpp - Plain tensors an op may mix in -----------===//

#include "meshguard/Analysis/ScalarLikeTensors.h"
#include "clang/AST/Decl.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSwitch.h"

using namespace clang;

namespace meshguard {
namespace analysis {

namespace {

/// Whether a sizes argument is a braced list (`{}`, `{2, 3}`, as an
/// IntArrayRef) of no sizes or only the literal 1: one element.
bool isOneElementSizes(const Expr *Arg) {
  while (Arg) {
    Arg = Arg->IgnoreImplicit();
    if (const auto *List = dyn_cast<InitListExpr>(Arg))
      return llvm::all_of(List->inits(), [](const Expr *Size) {
        const auto *Lit = dyn_cast<IntegerLiteral>(Size->IgnoreImpCasts());
        return Lit && Lit->getValue() == 1;
      });
    if (const auto *Construct = dyn_cast<CXXConstructExpr>(Arg)) {
      if (Construct->getNumArgs() == 0)
        return Construct->isListInitialization(); // `{}`
      Arg = Construct->getNumArgs() == 1 ? Construct->getArg(0) : nullptr;
    } else if (const auto *IL = dyn_cast<CXXStdInitializerListExpr>(Arg)) {
      Arg = IL->getSubExpr();
    } else {
      return false;
    }
  }
  return false;
}

bool isTorchNamespace(const FunctionDecl &FD) {
  std::string Name = FD.getQualifiedNameAsString();
  return llvm::StringRef(Name).starts_with("at::") ||
         llvm::StringRef(Name).starts_with("torch::");
}

/// The arguments written at the call (not defaulted ones).
unsigned writtenArgs(const CallExpr &Call) {
  return llvm::count_if(Call.arguments(), [](const Expr *Arg) {
    return !isa<CXXDefaultArgExpr>(Arg);
  });
}

/// A reduction over every element: `x.sum()`, `at::mean(x)`, `x.norm()`.
bool isFullReduction(const CallExpr &Call, llvm::StringRef Name) {
  bool Reduces = llvm::StringSwitch<bool>(Name)
                     .Cases("sum", "mean", "prod", "max", "min", true)
                     .Cases("norm", "std", "var", "all", "any", true)
                     .Default(false);
  unsigned TensorArgs = isa<CXXMemberCallExpr>(Call) ? 0 : 1;
  return Reduces && writtenArgs(Call) == TensorArgs;
}

} // namespace

bool makesScalarLikeTensor(const Expr *E) {
  const auto *Call = E ? dyn_cast<CallExpr>(E->IgnoreImplicit()) : nullptr;
  const FunctionDecl *FD = Call ? Call->getDirectCallee() : nullptr;
  if (!FD || !FD->getDeclName().isIdentifier() || !isTorchNamespace(*FD))
    return false;
  llvm::StringRef Name = FD->getName();
  if (isFullReduction(*Call, Name))
    return true;
  if (Call->getNumArgs() == 0)
    return false;
  if (Name == "scalar_tensor")
    return true;
  const Expr *First = Call->getArg(0)->IgnoreImplicit();
  // libtorch's torch::tensor takes a TensorDataContainer made from a number
  // or a braced list.
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(First);
      Construct && Construct->getNumArgs() == 1)
    First = Construct->getArg(0)->IgnoreImplicit();
  if (Name == "tensor")
    return First->getType()->isArithmeticType();
  bool SizedFactory = llvm::StringSwitch<bool>(Name)
                          .Cases("zeros", "ones", "empty", "full", true)
                          .Cases("rand", "randn", true)
                          .Default(false);
  if (!SizedFactory)
    return false;
  return isOneElementSizes(Call->getArg(0));
}

bool isScalarLikeOperand(const Expr *E, const Expr *Origin) {
  if (makesScalarLikeTensor(E) || makesScalarLikeTensor(Origin))
    return true;
  // A variable made by such a call (a later assignment of a larger tensor
  // is missed: no finding rather than a false one).
  const auto *Ref = E ? dyn_cast<DeclRefExpr>(E->IgnoreImplicit()) : nullptr;
  const auto *VD = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  return VD && makesScalarLikeTensor(VD->getInit());
}

} // namespace analysis
} // namespace meshguard
