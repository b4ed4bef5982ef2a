//===--- MeshAwareRewrite.cpp - A raw c10d collective as a mesh-aware one -===//

#include "MeshAwareRewrite.h"
#include "../NamedFunctions.h"
#include "EditableSource.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Stmt.h"
#include "clang/Lex/Lexer.h"

using namespace clang;

namespace meshguard {
namespace tidy {

/// \p S without the temporaries that wrap a returned object.
static const Stmt *unwrapped(const Stmt *S) {
  while (true) {
    if (const auto *E = dyn_cast_or_null<ExprWithCleanups>(S))
      S = E->getSubExpr();
    else if (const auto *B = dyn_cast_or_null<CXXBindTemporaryExpr>(S))
      S = B->getSubExpr();
    else if (const auto *M = dyn_cast_or_null<MaterializeTemporaryExpr>(S))
      S = M->getSubExpr();
    else
      return S;
  }
}

/// Whether \p Call's value is discarded: it is a statement of a block in
/// \p S. A walk of the function, not ASTContext::getParents, which builds
/// the parent map of the whole TU, torch headers included, on first use
/// (docs/tools/performance.md, "The parent map").
static bool isStatementIn(const Stmt *S, const CallExpr &Call) {
  if (!S)
    return false;
  if (const auto *Block = dyn_cast<CompoundStmt>(S))
    if (llvm::any_of(Block->body(), [&](const Stmt *Child) {
          return unwrapped(Child) == &Call;
        }))
      return true;
  return llvm::any_of(S->children(), [&](const Stmt *Child) {
    return isStatementIn(Child, Call);
  });
}

std::optional<FixItHint> meshAwareRewrite(const CallExpr &Call,
                                          const FunctionDecl &FD,
                                          StringRef MeshFunction,
                                          ASTContext &Ctx) {
  const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call);
  const CXXMethodDecl *MD = Member ? Member->getMethodDecl() : nullptr;
  if (!MD || !MD->getDeclName().isIdentifier() || Call.getNumArgs() < 1)
    return std::nullopt;
  // Options given explicitly (a root, a reduce op) would be lost.
  for (unsigned I = 1; I < Call.getNumArgs(); ++I)
    if (!isa<CXXDefaultArgExpr>(Call.getArg(I)))
      return std::nullopt;
  StringRef ExtraArgs;
  if (MD->getName() == "broadcast")
    ExtraArgs = ", 0"; // BroadcastOptions' default root.
  else if (MD->getName() != "allreduce")
    return std::nullopt; // Others differ in their outputs.
  if (!isStatementIn(FD.getBody(), Call) ||
      functionsNamed(Ctx, MeshFunction).empty())
    return std::nullopt;
  const SourceManager &SM = Ctx.getSourceManager();
  SourceRange Range = Call.getSourceRange();
  const Expr *Tensors = Call.getArg(0);
  if (!isEditable({Range.getBegin(), Range.getEnd(), Tensors->getBeginLoc(),
                   Tensors->getEndLoc()},
                  SM))
    return std::nullopt;
  bool Invalid = false;
  StringRef Text = Lexer::getSourceText(
      CharSourceRange::getTokenRange(Tensors->getSourceRange()), SM,
      Ctx.getLangOpts(), &Invalid);
  if (Invalid || Text.empty())
    return std::nullopt;
  return FixItHint::CreateReplacement(
      CharSourceRange::getTokenRange(Range),
      (MeshFunction + "(" + Text + ExtraArgs + ")").str());
}

} // namespace tidy
} // namespace meshguard
