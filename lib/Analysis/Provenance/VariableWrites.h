//===--- VariableWrites.h - How a body changes some local variables -*- C++
//-*-===//
//
// One walk over a function body (lambda bodies included) that sorts every use
// of the given variables into a read, a write that takes effect where it is
// (an assignment, a non-const method call), or a use after which the
// variable may change anywhere (its address taken, a non-const reference
// bound to it, passed by non-const reference, moved from, or a use the walk
// does not understand). Linear in the body, unlike ExprMutationAnalyzer,
// which walks the body again for every use.
//
//===----------------------------------------------------------------------===//

#ifndef MESHGUARD_ANALYSIS_VARIABLEWRITES_H
#define MESHGUARD_ANALYSIS_VARIABLEWRITES_H

#include "clang/AST/Decl.h"
#include "clang/AST/ParentMap.h"
#include "clang/AST/Stmt.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"

namespace meshguard {
namespace analysis {

struct VariableWrites {
  /// Changed (or possibly changed) in a lambda's body, through captures by
  /// reference all the way out to the variable.
  bool InLambda = false;
  /// May change anywhere after some use (see above).
  bool Escapes = false;
  /// The function's own writes that take effect where they are.
  llvm::SmallVector<const clang::Stmt *, 4> PointWrites;
};

/// The writes of each of \p Vars in \p Body. Uses in a lambda that captures
/// the variable by copy touch the copy and are left out. \p Parents must
/// cover \p Body.
llvm::DenseMap<const clang::VarDecl *, VariableWrites>
findVariableWrites(const clang::Stmt &Body,
                   const llvm::DenseSet<const clang::VarDecl *> &Vars,
                   const clang::ParentMap &Parents);

} // namespace analysis
} // namespace meshguard

#endif // MESHGUARD_ANALYSIS_VARIABLEWRITES_H
