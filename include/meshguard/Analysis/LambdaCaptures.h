//===--- LambdaCaptures.h - Provenance a lambda's captures carry -*- C++ -*-===//
//
// A lambda is analysed as its own function, where captured variables start
// unknown. This reads, in the enclosing function, what each captured tensor
// is where the lambda is created, so that `[=] { broadcast_({t}, 0); }` of a
// plain `t` is diagnosed like the same call outside the lambda.
//
//===----------------------------------------------------------------------===//

#ifndef MESHGUARD_ANALYSIS_LAMBDACAPTURES_H
#define MESHGUARD_ANALYSIS_LAMBDACAPTURES_H

#include "meshguard/Analysis/ApiIndex.h"
#include "meshguard/Analysis/FunctionAnalysis.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/DenseMap.h"

namespace meshguard {
namespace analysis {

/// The lambda expression that creates \p Closure, found in the body of the
/// function that encloses it; null if there is none.
const clang::LambdaExpr *lambdaExprOf(const clang::CXXRecordDecl &Closure);

struct CapturedTensor {
  bool Plain;
  /// The call that made it plain (or a DTensor) in the enclosing function.
  const clang::Expr *Origin;
};

/// The tensors \p CallOperator's lambda captures that are surely plain or
/// surely DTensors where the lambda is created and that keep that value
/// until it runs: captured by copy, or by reference when no lambda writes
/// the variable and the enclosing function writes it only where control
/// cannot come after the lambda's creation (not after it, not in a loop
/// around it). Empty for anything else.
llvm::DenseMap<const clang::VarDecl *, CapturedTensor>
capturedTensorFacts(const clang::CXXMethodDecl &CallOperator,
                    clang::ASTContext &Ctx, const ApiIndex &Index,
                    const AnalysisLimits &Limits);

} // namespace analysis
} // namespace meshguard

#endif // MESHGUARD_ANALYSIS_LAMBDACAPTURES_H
