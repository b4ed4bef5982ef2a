//===--- MeshInScope.h - A mesh for a fix-it --------------------*- C++ -*-===//

#ifndef MESHGUARD_TIDY_MESHINSCOPE_H
#define MESHGUARD_TIDY_MESHINSCOPE_H

#include "meshguard/Analysis/Api/ApiIndex.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include <memory>
#include <optional>
#include <string>

namespace meshguard {
namespace tidy {

/// An expression of type DeviceMesh usable at \p At inside \p FD: the
/// nearest visible DeviceMesh variable (or pointer to one, dereferenced), a
/// DeviceMesh parameter, a DeviceMesh field of the enclosing class, or
/// `*<mesh_of>(x)` for a visible variable x in \p DTensorVars. In a lambda's
/// body (\p FD its call operator) the enclosing function's variables count
/// when the lambda captures them: all of them under a default capture (`[&]`,
/// `[=]`), else those of its capture list; fields when it captures `this`.
/// The DeviceMesh locals of one function, found once for all its sites.
struct MeshLocals {
  const clang::FunctionDecl *FD = nullptr;
  /// DeviceMesh-typed locals, in source order.
  llvm::SmallVector<const clang::VarDecl *, 4> Vars;
  /// Where each local is declared: its DeclStmt, and the statement (block,
  /// for, if, ...) that holds that DeclStmt.
  struct Declaration {
    const clang::DeclStmt *Stmt = nullptr;
    const clang::Stmt *Scope = nullptr;
  };
  llvm::DenseMap<const clang::VarDecl *, Declaration> DeclarationOf;
  /// Every local by name: what may hide a mesh variable at a site.
  llvm::DenseMap<const clang::IdentifierInfo *,
                 llvm::SmallVector<const clang::VarDecl *, 1>>
      ByName;
  /// In a lambda: the enclosing function's locals, kept across the lambdas
  /// of one function (each would walk the whole enclosing body again).
  std::unique_ptr<MeshLocals> Enclosing;
};

/// Whether the function a fix-it calls takes a mesh of this type.
using MeshAcceptor = llvm::function_ref<bool(clang::QualType)>;

/// \p DTensorVars: nearest first. \p Cache, when given, keeps the function's
/// DeviceMesh locals between calls for the same \p FD (without it every call
/// walks the body). \p Accepts, when given, must accept the mesh's type (the
/// value the expression denotes): the API model may name mesh types that
/// the called function does not take.
std::optional<std::string>
meshExpressionInScope(const clang::FunctionDecl &FD, const clang::Stmt &At,
                      llvm::ArrayRef<const clang::VarDecl *> DTensorVars,
                      const analysis::ApiIndex &Index,
                      MeshLocals *Cache = nullptr,
                      MeshAcceptor Accepts = nullptr);

/// The statement that declares the local \p VD of \p FD, or null; \p Cache
/// as for meshExpressionInScope.
const clang::DeclStmt *declaringStmt(const clang::FunctionDecl &FD,
                                     const clang::VarDecl &VD,
                                     const analysis::ApiIndex &Index,
                                     MeshLocals *Cache = nullptr);

} // namespace tidy
} // namespace meshguard

#endif // MESHGUARD_TIDY_MESHINSCOPE_H
