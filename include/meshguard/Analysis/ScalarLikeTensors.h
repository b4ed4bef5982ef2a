//===--- ScalarLikeTensors.h - Plain tensors an op may mix in -*- C++ -*-===//
//
// The runtime (like PyTorch's DTensor) lets an op take a plain tensor with
// one element (or no dimensions) alongside DTensors: it is treated as a
// replicated scalar. These are the calls that surely make such a tensor.
//
//===----------------------------------------------------------------------===//

#ifndef MESHGUARD_ANALYSIS_SCALARLIKETENSORS_H
#define MESHGUARD_ANALYSIS_SCALARLIKETENSORS_H

#include "clang/AST/Expr.h"

namespace meshguard {
namespace analysis {

/// Whether \p E is a call that makes a tensor of one element:
/// `at::scalar_tensor(x)`, `torch::tensor(2.0)` (a number, not a list), a
/// factory given the sizes `{}` or `{1, ...}` (`torch::ones({1})`), or a
/// reduction over all elements (`x.sum()`, `at::mean(x)`).
bool makesScalarLikeTensor(const clang::Expr *E);

/// Whether the plain operand \p E of an op is surely of one element: made
/// by such a call, directly, through the call its provenance comes from
/// (\p Origin), or as the initializer of the variable it names.
bool isScalarLikeOperand(const clang::Expr *E, const clang::Expr *Origin);

} // namespace analysis
} // namespace meshguard

#endif // MESHGUARD_ANALYSIS_SCALARLIKETENSORS_H
