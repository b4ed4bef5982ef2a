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

class ApiIndex;

/// Whether the plain operand \p E of an op surely has one element, judged
/// by the expression (or \p Origin, the call its provenance comes from, or
/// the initializer of the variable it names):
///   - `at::scalar_tensor(x)`, `torch::tensor(2.0)` (a number, not a list);
///   - a factory given the sizes `1`, `{}` or only 1s (`torch::ones({1})`);
///   - a reduction over all elements (`p.sum()`, `at::mean(p)`), a loss with
///     its default mean reduction, `dot`, a norm over everything;
///   - element-wise functions, conversions and arithmetic of such tensors
///     and numbers (`s.detach()`, `torch::ones(1) * 0.1`).
bool isScalarLikeOperand(const clang::Expr *E, const clang::Expr *Origin,
                         const ApiIndex &Index);

} // namespace analysis
} // namespace meshguard

#endif // MESHGUARD_ANALYSIS_SCALARLIKETENSORS_H
