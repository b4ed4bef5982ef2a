//===--- ModuleNavigation.h - From an expression to the modules it names -*- C++
//-*-===//
//
// Module facts live on the module objects (TensorState.h); an expression
// reaches them through holders (`*holder`, `holder->`, `.get()`), pointers
// and submodule fields. This is the navigation, apart from the facts.
//
//===----------------------------------------------------------------------===//

#ifndef MESHGUARD_ANALYSIS_MODULENAVIGATION_H
#define MESHGUARD_ANALYSIS_MODULENAVIGATION_H

#include "clang/AST/Expr.h"
#include "clang/Analysis/FlowSensitive/DataflowEnvironment.h"
#include "clang/Analysis/FlowSensitive/StorageLocation.h"
#include "llvm/ADT/SmallVector.h"

namespace meshguard {
namespace analysis {

class ApiIndex;

/// The module objects \p E goes through, outermost access first:
/// `*model->encoder` gives encoder's holder, then model. Module and holder
/// variables and fields resolve to their locations; `holder->` and `*holder`
/// to the holder's.
llvm::SmallVector<clang::dataflow::RecordStorageLocation *, 4>
modulesAlong(const clang::Expr *E, const clang::dataflow::Environment &Env,
             const ApiIndex &Index);
/// The variable \p E names when it is a module variable itself, `*holder`
/// or `holder->` (not a submodule): where a note about it points.
const clang::VarDecl *moduleVariable(const clang::Expr *E,
                                     const ApiIndex &Index);
} // namespace analysis
} // namespace meshguard

#endif // MESHGUARD_ANALYSIS_MODULENAVIGATION_H
