//===--- HoistGatherFix.h - Move a gather out of a rank branch --*- C++ -*-===//
//
// The checkpoint shape `if (rank == 0) { auto full = full_tensor(w);
// save(full); }` is fixed by hoisting the declaration that gathers above the
// `if`: every rank then takes part in the collective and rank 0 alone still
// writes.
//
//===----------------------------------------------------------------------===//

#ifndef MESHGUARD_TIDY_HOISTGATHERFIX_H
#define MESHGUARD_TIDY_HOISTGATHERFIX_H

#include "meshguard/Analysis/Divergence/DivergentCollectives.h"
#include "clang/AST/ASTContext.h"
#include "clang/Basic/Diagnostic.h"
#include "llvm/ADT/SmallVector.h"

namespace meshguard {
namespace tidy {

/// The edits that hoist \p D's collective above its branch, or none when
/// that is not safe: the collective must initialise a variable declared
/// directly in the then-block of an `if` without `else`, its operands must
/// come from outside the `if` and not be touched before it in the block,
/// the condition must have no side effects (calls of accessors are fine),
/// nothing of it may be in a macro, and the variable's name must be free in the
/// function.
llvm::SmallVector<clang::FixItHint, 2>
hoistGather(const analysis::DivergentCollective &D,
            const clang::FunctionDecl &FD, clang::ASTContext &Ctx);

} // namespace tidy
} // namespace meshguard

#endif // MESHGUARD_TIDY_HOISTGATHERFIX_H
