//===--- CheckpointRewrite.h - torch::save to the checkpoint API -*- C++
//-*-===//
//
// What dtensor-unsharded-checkpoint needs beyond the provenance facts: the
// calls that distribute a module (for the mesh a fix-it passes, and for
// modules the provenance model does not follow through fully_shard and
// parallelize_module), and the rewrite of torch::save(value, path) into
// meshguard::checkpoint::save.
//
//===----------------------------------------------------------------------===//

#ifndef MESHGUARD_TIDY_CHECKPOINTREWRITE_H
#define MESHGUARD_TIDY_CHECKPOINTREWRITE_H

#include "meshguard/Analysis/Api/ApiIndex.h"
#include "clang/AST/Expr.h"
#include "clang/Basic/Diagnostic.h"
#include "llvm/ADT/SmallVector.h"
#include <optional>
#include <string>

namespace meshguard {
namespace tidy {

/// A call that makes a module's parameters DTensors: distribute_module,
/// fully_shard, parallelize_module.
struct ModuleDistribution {
  const clang::CallExpr *Call = nullptr;
  /// Its module and mesh arguments.
  const clang::Expr *Module = nullptr;
  const clang::Expr *Mesh = nullptr;
};

/// The calls of \p FD's body that distribute \p Module (the same module
/// variable, a submodule of it, or a module it is a submodule of) before
/// \p Before, in source order.
llvm::SmallVector<ModuleDistribution, 2>
distributionsBefore(const clang::FunctionDecl &FD, const clang::Expr &Module,
                    const clang::Expr &Before, const analysis::ApiIndex &Index,
                    clang::ASTContext &Ctx);

/// Whether no other variable of \p FD (parameter or local, in any scope)
/// has \p Var's name: a fix-it that names it then means it wherever the
/// name is visible.
bool onlyVariableNamed(const clang::FunctionDecl &FD,
                       const clang::VarDecl &Var);

/// Whether \p E names a file (a string or a character array or pointer),
/// not a stream or a writer function.
bool isPathArgument(const clang::Expr &E);

/// `meshguard::checkpoint::save(<Tensors>, <path>, <Mesh>)` in place of
/// \p Save, a torch::save(value, path); none in a macro or a system header.
std::optional<clang::FixItHint> checkpointSaveFix(const clang::CallExpr &Save,
                                                  llvm::StringRef Tensors,
                                                  llvm::StringRef Mesh,
                                                  clang::ASTContext &Ctx);

/// The source text of \p E, or empty.
std::string sourceText(const clang::Expr &E, clang::ASTContext &Ctx);

} // namespace tidy
} // namespace meshguard

#endif // MESHGUARD_TIDY_CHECKPOINTREWRITE_H
