//===--- UserCodeScope.cpp - Traversal scope: the user code ------------===//

#include "meshguard/Analysis/Engine/UserCodeScope.h"
#include "clang/Basic/SourceManager.h"

using namespace clang;

namespace meshguard {
namespace analysis {

UserCodeScope::UserCodeScope(ASTContext &Ctx)
    : Ctx(Ctx), Saved(Ctx.getTraversalScope()) {
  const SourceManager &SM = Ctx.getSourceManager();
  std::vector<Decl *> User;
  auto Add = [&](Decl *D) {
    SourceLocation Loc = SM.getExpansionLoc(D->getBeginLoc());
    if (Loc.isInvalid() || !SM.isInSystemHeader(Loc))
      User.push_back(D);
  };
  if (Saved.size() == 1 && isa<TranslationUnitDecl>(Saved.front()))
    llvm::for_each(Ctx.getTranslationUnitDecl()->decls(), Add);
  else
    llvm::for_each(Saved, Add);
  Ctx.setTraversalScope(User);
}

UserCodeScope::~UserCodeScope() { Ctx.setTraversalScope(Saved); }

} // namespace analysis
} // namespace meshguard
