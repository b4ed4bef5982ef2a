//===--- LambdaCaptures.h - Provenance a lambda's captures carry -*- C++
//-*-===//
//
// A lambda is analysed as its own function, where captured variables start
// unknown. This reads, in the enclosing function, what each captured tensor
// is where the lambda is created, so that `[=] { broadcast_({t}, 0); }` of a
// plain `t` is diagnosed like the same call outside the lambda.
//
// The enclosing function is walked and analysed once for all of its lambdas
// (the memo belongs to the TU's summary provider, owned by its engine, and
// reaches a run through OtherFunctions): a function of N lambdas costs one
// analysis of it, not N. Every pre-pass is one linear walk, and a function
// larger than MaxFunctionElements gets no facts without more than that walk.
//
//===----------------------------------------------------------------------===//

#ifndef MESHGUARD_ANALYSIS_LAMBDACAPTURES_H
#define MESHGUARD_ANALYSIS_LAMBDACAPTURES_H

#include "meshguard/Analysis/Api/ApiIndex.h"
#include "meshguard/Analysis/Provenance/FunctionAnalysis.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/DenseMap.h"
#include <memory>

namespace meshguard {
namespace analysis {

struct CapturedTensor {
  bool Plain;
  /// The call that made it plain (or a DTensor) in the enclosing function.
  const clang::Expr *Origin;
};

using CaptureFacts = llvm::DenseMap<const clang::VarDecl *, CapturedTensor>;

/// What the lambdas of one TU capture, computed once per enclosing function.
class LambdaCaptureMemo {
public:
  LambdaCaptureMemo();
  ~LambdaCaptureMemo();

  /// The lambda expression that creates \p Closure, found in the body of
  /// the function that encloses it; null if there is none.
  const clang::LambdaExpr *lambdaExpr(const clang::CXXRecordDecl &Closure);

  /// The tensors \p CallOperator's lambda captures that are surely plain or
  /// surely DTensors where the lambda is created and that keep that value
  /// until it runs: captured by copy, or by reference when no lambda writes
  /// the variable (through a by-reference capture) and the enclosing function
  /// writes it only where control cannot come after the lambda's creation
  /// (not after it, not in a loop around it). Empty for anything else, and
  /// when the enclosing function is larger than Limits.MaxFunctionElements.
  const CaptureFacts &facts(const clang::CXXMethodDecl &CallOperator,
                            clang::ASTContext &Ctx, const ApiIndex &Index,
                            const AnalysisLimits &Limits);

  /// Whether every change to the local variable \p VD is a statement of the
  /// function that declares it, seen by that function's own analysis where
  /// it is: no lambda writes it (through a by-reference capture, an
  /// init-capture alias included), and no reference or pointer to it is
  /// kept or handed out. Then what a lambda capturing it by reference sees
  /// when called there is what the analysis has at the call. One walk of
  /// the declaring function per variable asked about.
  bool changedOnlyInPlace(const clang::VarDecl &VD);

  /// Enclosing functions analysed for their lambdas' captures, and the
  /// lambdas asked about (PrintStats: one analysis per function, whatever
  /// the number of its lambdas).
  unsigned functionsAnalysed() const { return FunctionsAnalysed; }
  unsigned lambdasAsked() const { return LambdasAsked; }

  /// One enclosing function's lambdas and their facts.
  struct Enclosing;

private:
  Enclosing &enclosing(const clang::FunctionDecl &FD);
  void computeFacts(Enclosing &E, clang::ASTContext &Ctx, const ApiIndex &Index,
                    const AnalysisLimits &Limits);

  llvm::DenseMap<const clang::FunctionDecl *, std::unique_ptr<Enclosing>>
      ByFunction;
  const CaptureFacts None;
  unsigned FunctionsAnalysed = 0;
  unsigned LambdasAsked = 0;
};

/// The lambda expression that creates \p Closure; null if there is none.
/// One walk of the enclosing function (LambdaCaptureMemo::lambdaExpr
/// remembers it).
const clang::LambdaExpr *findLambdaExpr(const clang::CXXRecordDecl &Closure);

} // namespace analysis
} // namespace meshguard

#endif // MESHGUARD_ANALYSIS_LAMBDACAPTURES_H
