//===--- CallableTargets.h - The lambda a callable surely holds -*- C++ -*-===//
//
// A call through a std::function (`fn(x)`) has no body to summarise: its
// operator() is the library's. When the std::function surely holds one
// lambda of this TU (a local initialised from it and never changed after,
// or a parameter of a helper that the call being summarised binds to it),
// the call is a call to that lambda's operator(), and its summary applies.
//
//===----------------------------------------------------------------------===//

#ifndef MESHGUARD_ANALYSIS_CALLABLETARGETS_H
#define MESHGUARD_ANALYSIS_CALLABLETARGETS_H

#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMap.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include <memory>

namespace meshguard {
namespace analysis {

/// A std::function parameter of a helper, bound to the lambda one call of
/// the helper passes (`for_each_param(m, [&](at::Tensor &p) {...})`).
struct CallableBinding {
  const clang::ParmVarDecl *Param;
  const clang::LambdaExpr *Lambda;
  bool operator==(const CallableBinding &O) const {
    return Param == O.Param && Lambda == O.Lambda;
  }
};

/// Whether \p RD is a std::function (a specialisation of it).
bool isStdFunction(const clang::CXXRecordDecl *RD);
/// Whether \p T (through references and qualifiers) is a std::function.
bool isStdFunctionType(clang::QualType T);

/// Answers "which lambda does this callable hold?", remembering per local
/// variable whether the function declaring it ever changes it.
class CallableTargets {
public:
  /// The lambda \p E surely holds: a (non-generic) lambda expression, seen
  /// through std::function's converting construction, copies, casts and
  /// temporaries; a local closure or std::function initialised from one and
  /// never changed after (not assigned, moved from, written in a lambda, nor
  /// handed out by non-const reference or pointer); or a parameter \p Bound
  /// binds (whoever binds a parameter checks neverChanged). Null for
  /// anything else.
  const clang::LambdaExpr *heldLambda(const clang::Expr *E,
                                      llvm::ArrayRef<CallableBinding> Bound);

  /// Whether the function declaring the local variable or parameter \p VD
  /// never changes it after its initialisation: no assignment, move, write
  /// in a lambda, nor non-const reference or pointer handed out.
  bool neverChanged(const clang::VarDecl &VD);

private:
  const clang::LambdaExpr *heldLambda(const clang::Expr *E,
                                      llvm::ArrayRef<CallableBinding> Bound,
                                      unsigned Depth);

  llvm::DenseMap<const clang::VarDecl *, bool> Unchanged;
  llvm::DenseMap<const clang::Stmt *, std::unique_ptr<clang::ParentMap>>
      Parents;
};

} // namespace analysis
} // namespace meshguard

#endif // MESHGUARD_ANALYSIS_CALLABLETARGETS_H
