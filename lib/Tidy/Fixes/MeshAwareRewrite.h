//===--- MeshAwareRewrite.h - A raw c10d collective as a mesh-aware one -*- C++
//-*-===//
//
// The fix-it for a raw process-group collective given a vector of DTensors
// that no to_local() can reach (DDP's `params = model->parameters();
// pg.broadcast(params);`): the mesh-aware collective on the same vector,
// which keeps the parameters distributed and broadcasts from rank 0 as the
// default BroadcastOptions do.
//
//===----------------------------------------------------------------------===//

#ifndef MESHGUARD_TIDY_MESHAWAREREWRITE_H
#define MESHGUARD_TIDY_MESHAWAREREWRITE_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/Basic/Diagnostic.h"
#include <optional>

namespace meshguard {
namespace tidy {

/// `pg.broadcast(ts);` -> `meshguard::dist::broadcast_(ts, 0);`,
/// `pg.allreduce(ts);` -> `meshguard::dist::all_reduce_(ts);`: a
/// ProcessGroup method with default options, as a statement (the Work it
/// returns unused: a statement of a block of \p FD, the function that
/// holds it), with \p MeshFunction declared in the TU; else nothing.
std::optional<clang::FixItHint> meshAwareRewrite(const clang::CallExpr &Call,
                                                 const clang::FunctionDecl &FD,
                                                 llvm::StringRef MeshFunction,
                                                 clang::ASTContext &Ctx);

} // namespace tidy
} // namespace meshguard

#endif // MESHGUARD_TIDY_MESHAWAREREWRITE_H
