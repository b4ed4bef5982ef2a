//===--- ApiModelChecks.h - A user's API model against what it names -*- C++
//-*-===//
//
// A YAML model is data: a typo or a wrong index there used to drop findings
// or produce fix-its that call missing functions, without a word. These
// checks say so, with the entry's file:line:col.
//
//===----------------------------------------------------------------------===//

#ifndef MESHGUARD_TIDY_APIMODELCHECKS_H
#define MESHGUARD_TIDY_APIMODELCHECKS_H

#include "AnalysisOptions.h"
#include "meshguard/Analysis/Api/ApiModel.h"
#include "clang/AST/ASTContext.h"

namespace meshguard {
namespace tidy {

/// Removes from \p User each entry that re-declares an entry of \p Builtin
/// (same function) with other arguments, reporting it as an error: the
/// built-in entry stays. An identical re-declaration is kept silently.
void dropConflictingEntries(analysis::ApiModel &User,
                            const analysis::ApiModel &Builtin,
                            ConfigReporter &Report);

/// Checks the user's entries of \p Model against the declarations of the
/// TU, for the functions it declares: a tensor_arg or tensor_args index
/// beyond the function's parameters (an error: the entry cannot apply), a
/// guarded form that is not declared or has no parameter for the mesh (a
/// warning: no fix-it for that collective).
void checkModelAgainstTU(const analysis::ApiModel &Model,
                         clang::ASTContext &Ctx, ConfigReporter &Report);

} // namespace tidy
} // namespace meshguard

#endif // MESHGUARD_TIDY_APIMODELCHECKS_H
