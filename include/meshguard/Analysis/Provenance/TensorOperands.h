//===--- TensorOperands.h - The tensors an argument passes ------*- C++ -*-===//

#ifndef MESHGUARD_ANALYSIS_TENSOROPERANDS_H
#define MESHGUARD_ANALYSIS_TENSOROPERANDS_H

#include "clang/AST/Expr.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

namespace meshguard {
namespace analysis {

class ApiIndex;

struct TensorOperand {
  const clang::Expr *E;
  /// E is a container of tensors (a named vector, a TensorList), not a tensor.
  bool IsContainer;
};

struct TensorOperands {
  llvm::SmallVector<TensorOperand, 4> Items;
  /// The operands are the elements of a braced list (`{a, b}`, `{}`).
  bool FromList = false;
};

/// The tensors \p Arg passes: the elements of a braced list that initialises a
/// container (`broadcast_({a, b}, 0)`), or \p Arg itself when it is a tensor
/// or a container. Empty for anything else.
TensorOperands tensorOperands(const clang::Expr *Arg, const ApiIndex &Index);

/// The braced-list elements a container construction copies, if it is one.
bool listElements(const clang::CXXConstructExpr *Construct,
                  const ApiIndex &Index, TensorOperands &Out);

/// The arguments of \p Call that bind the callee's parameters: all of them,
/// except for an operator call on a method (`v[i]`, `p += x`), which passes
/// the object as argument 0.
llvm::ArrayRef<const clang::Expr *>
parameterArguments(const clang::CallExpr &Call);

/// The object a method call works on: `w` in `w.add_(x)` and in `w += x`
/// (an operator call on a method passes it as argument 0); null for other
/// calls.
const clang::Expr *objectArgument(const clang::CallExpr &Call);

/// The source of a copy or move construction (`at::Tensor b = a;`, the
/// elements of a braced list), or null when \p E is not one.
const clang::Expr *copySource(const clang::Expr *E);

} // namespace analysis
} // namespace meshguard

#endif // MESHGUARD_ANALYSIS_TENSOROPERANDS_H
