//===--- UserCodeScope.h - Traversal scope: the user code -*- C++ -*-===//
//-*-===//
//
// While a UserCodeScope is alive, the AST's traversal scope is the user's
// top-level declarations (those outside the system headers, within the
// scope it had): ASTContext::getParents, which the analyses and the
// diagnostics ask, then maps the user's code, not libtorch's headers (that
// map cost 2 s of CPU on examples/train.cpp, a tenth of the run). clangd
// limits the scope to the main file's declarations the same way. The
// previous scope is restored at the end (the AST matchers of a clang-tidy
// run go on with it).
//
//===----------------------------------------------------------------------===//

#ifndef MESHGUARD_ANALYSIS_ENGINE_USERCODESCOPE_H
#define MESHGUARD_ANALYSIS_ENGINE_USERCODESCOPE_H

#include "clang/AST/ASTContext.h"
#include <vector>

namespace meshguard {
namespace analysis {

class UserCodeScope {
public:
  explicit UserCodeScope(clang::ASTContext &Ctx);
  ~UserCodeScope();
  UserCodeScope(const UserCodeScope &) = delete;
  UserCodeScope &operator=(const UserCodeScope &) = delete;

private:
  clang::ASTContext &Ctx;
  std::vector<clang::Decl *> Saved;
};

} // namespace analysis
} // namespace meshguard

#endif // MESHGUARD_ANALYSIS_ENGINE_USERCODESCOPE_H
