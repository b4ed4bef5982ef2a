//===--- MeshInScope.h - Find a DeviceMesh expression for a fix-it -*- C++ -*-===//

#ifndef MESHGUARD_TIDY_MESHINSCOPE_H
#define MESHGUARD_TIDY_MESHINSCOPE_H

#include "meshguard/Analysis/ApiIndex.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "llvm/ADT/ArrayRef.h"
#include <optional>
#include <string>

namespace meshguard {
namespace tidy {

/// An expression of type DeviceMesh usable at \p Call inside \p FD: the
/// nearest visible DeviceMesh variable (or pointer to one, dereferenced), a
/// DeviceMesh parameter, a DeviceMesh field of the enclosing class, or
/// `*<mesh_of>(x)` for a visible variable x in \p DTensorVars. In a lambda's
/// body (\p FD its call operator) the enclosing function's variables count
/// when the lambda captures them: all of them under a default capture (`[&]`,
/// `[=]`), else those of its capture list; fields when it captures `this`.
std::optional<std::string>
meshExpressionInScope(const clang::FunctionDecl &FD, const clang::Expr &Call,
                      llvm::ArrayRef<const clang::VarDecl *> DTensorVars,
                      const analysis::ApiIndex &Index);

} // namespace tidy
} // namespace meshguard

#endif // MESHGUARD_TIDY_MESHINSCOPE_H
