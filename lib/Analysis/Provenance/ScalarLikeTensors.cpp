//===--- ScalarLikeTensors.cpp - Plain tensors an op may mix in -----------===//

#include "Provenance/ScalarLikeTensors.h"
#include "meshguard/Analysis/Api/ApiIndex.h"
#include "meshguard/Analysis/Provenance/TensorOperands.h"
#include "clang/AST/Decl.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
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
    if (const auto *Lit = dyn_cast<IntegerLiteral>(Arg))
      return Lit->getValue() == 1; // `torch::ones(1)`
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

/// Element-wise functions of one tensor, and conversions: the result has
/// the shape of the input.
bool keepsShape(llvm::StringRef Name) {
  return llvm::StringSwitch<bool>(Name)
      .Cases("detach", "clone", "to", "contiguous", "cpu", "cuda", true)
      .Cases("neg", "abs", "sqrt", "rsqrt", "exp", "log", "reciprocal", true)
      .Cases("sigmoid", "relu", "tanh", "square", "float", "double", true)
      .Cases("half", "requires_grad_", "clamp", "clamp_min", "pow", true)
      .Default(false);
}

/// Arithmetic of tensors and numbers: the result has the operands' shape
/// when they all have one element.
bool isArithmetic(const CallExpr &Call, llvm::StringRef Name) {
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(&Call))
    switch (Op->getOperator()) {
    case OO_Plus:
    case OO_Minus:
    case OO_Star:
    case OO_Slash:
      return true;
    default:
      return false;
    }
  return llvm::StringSwitch<bool>(Name)
      .Cases("add", "sub", "mul", "div", true)
      .Default(false);
}

/// Functions whose result has one element whatever the inputs (written
/// without the arguments that would change that): losses reduced by their
/// default mean, dot products, norms over everything.
bool alwaysOneElement(const CallExpr &Call, llvm::StringRef Name) {
  unsigned Written = writtenArgs(Call);
  if (Name.ends_with("_loss") || Name == "cross_entropy" ||
      Name == "binary_cross_entropy" ||
      Name == "binary_cross_entropy_with_logits" || Name == "kl_div")
    return Written == 2;
  if (Name == "dot" || Name == "vdot")
    return Written == 2 && !isa<CXXMemberCallExpr>(Call);
  if (Name == "frobenius_norm" || Name == "linalg_vector_norm" ||
      Name == "linalg_norm" || Name == "nuclear_norm")
    return Written == 1;
  return false;
}

bool scalarLike(const Expr *E, const ApiIndex &Index, unsigned Depth);

/// The tensors a call computes from: its object and its tensor arguments.
bool tensorInputsScalarLike(const CallExpr &Call, const ApiIndex &Index,
                            unsigned Depth) {
  llvm::SmallVector<const Expr *, 4> Inputs;
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call))
    Inputs.push_back(Member->getImplicitObjectArgument());
  for (const Expr *Arg : Call.arguments())
    if (Index.isTensorType(Arg->getType()))
      Inputs.push_back(Arg);
  return !Inputs.empty() && llvm::all_of(Inputs, [&](const Expr *In) {
    return scalarLike(In, Index, Depth + 1);
  });
}

bool scalarLike(const Expr *E, const ApiIndex &Index, unsigned Depth) {
  if (!E || Depth > 8)
    return false;
  E = E->IgnoreImplicit();
  // A variable made by such a call (a later assignment of a larger tensor
  // is missed: no finding rather than a false one).
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    const auto *VD = dyn_cast<VarDecl>(Ref->getDecl());
    return VD && scalarLike(VD->getInit(), Index, Depth + 1);
  }
  if (const Expr *Source = copySource(E))
    return scalarLike(Source, Index, Depth + 1);
  const auto *Call = dyn_cast<CallExpr>(E);
  const FunctionDecl *FD = Call ? Call->getDirectCallee() : nullptr;
  if (!FD || !isTorchNamespace(*FD))
    return false;
  if (!FD->getDeclName().isIdentifier())
    return isArithmetic(*Call, "") &&
           tensorInputsScalarLike(*Call, Index, Depth);
  llvm::StringRef Name = FD->getName();
  if (isFullReduction(*Call, Name) || alwaysOneElement(*Call, Name))
    return true;
  if (keepsShape(Name) || isArithmetic(*Call, Name))
    return tensorInputsScalarLike(*Call, Index, Depth);
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
  return SizedFactory && isOneElementSizes(Call->getArg(0));
}

} // namespace

bool isScalarLikeOperand(const Expr *E, const Expr *Origin,
                         const ApiIndex &Index) {
  return scalarLike(E, Index, 0) || scalarLike(Origin, Index, 0);
}

} // namespace analysis
} // namespace meshguard
