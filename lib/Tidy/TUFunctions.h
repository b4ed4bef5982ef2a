//===--- TUFunctions.h - The functions the dtensor-* checks look at -*- C++
//-*-===//
//
// One walk of the translation unit for all dtensor-* checks: the function
// definitions and lambdas outside the system headers, within the AST's
// traversal scope (the whole TU for clang-tidy, the main file's own
// declarations for clangd), each with the functions its body calls. A
// check then picks those that call what it cares about. The AST matchers
// would instead test every declaration of libtorch's headers, once per check
// (issue #40: 0.43 s per check on a file including <torch/torch.h>).
//
//===----------------------------------------------------------------------===//

#ifndef MESHGUARD_TIDY_TUFUNCTIONS_H
#define MESHGUARD_TIDY_TUFUNCTIONS_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include <vector>

namespace meshguard {
namespace tidy {

/// Whether \p Loc expands in a system header.
bool inSystemHeader(clang::SourceLocation Loc, const clang::SourceManager &SM);

class TUFunctions {
public:
  /// A function definition (template patterns and instantiations alike),
  /// or a lambda, whose call operator is Function.
  struct Entry {
    const clang::FunctionDecl *Function = nullptr;
    const clang::LambdaExpr *Lambda = nullptr;
    /// What it calls: in a function's body, or anywhere in a lambda
    /// expression (captures' initialisers too); nested lambdas included.
    llvm::SmallVector<const clang::FunctionDecl *, 8> Callees;
  };

  explicit TUFunctions(clang::ASTContext &Ctx);

  const clang::ASTContext &context() const { return Ctx; }
  /// In the order of the AST.
  llvm::ArrayRef<Entry> entries() const { return Entries; }

  /// Whether \p E calls a function \p Wanted accepts, directly or, up to
  /// \p Depth levels down, through functions outside the system headers
  /// whose bodies do (the user's wrappers).
  bool calls(const Entry &E,
             llvm::function_ref<bool(const clang::FunctionDecl &)> Wanted,
             unsigned Depth);

private:
  /// What the body of \p FD (its definition's) calls, found once.
  llvm::ArrayRef<const clang::FunctionDecl *>
  calleesOf(const clang::FunctionDecl &FD);
  bool reaches(const clang::FunctionDecl &Callee,
               llvm::function_ref<bool(const clang::FunctionDecl &)> Wanted,
               unsigned Depth);

  clang::ASTContext &Ctx;
  std::vector<Entry> Entries;
  llvm::DenseMap<const clang::Stmt *,
                 llvm::SmallVector<const clang::FunctionDecl *, 8>>
      BodyCallees;
};

} // namespace tidy
} // namespace meshguard

#endif // MESHGUARD_TIDY_TUFUNCTIONS_H
