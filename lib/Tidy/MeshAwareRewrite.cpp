//===--- MeshAwareRewrite.cpp - A raw c10d collective as a mesh-aware one -===//

#include "MeshAwareRewrite.h"
#include "EditableSource.h"
#include "NamedFunctions.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/Stmt.h"
#include "clang/Lex/Lexer.h"

using namespace clang;

namespace meshguard {
namespace tidy {

/// Whether \p Call's value is discarded: it is a statement of a block.
static bool isStatement(const CallExpr &Call, ASTContext &Ctx) {
  DynTypedNode Node = DynTypedNode::create(Call);
  while (true) {
    DynTypedNodeList Parents = Ctx.getParents(Node);
    if (Parents.size() != 1)
      return false;
    const DynTypedNode &Parent = Parents[0];
    if (Parent.get<ExprWithCleanups>() || Parent.get<CXXBindTemporaryExpr>() ||
        Parent.get<MaterializeTemporaryExpr>()) {
      Node = Parent;
      continue;
    }
    return Parent.get<CompoundStmt>() != nullptr;
  }
}

std::optional<FixItHint> meshAwareRewrite(const CallExpr &Call,
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
  if (!isStatement(Call, Ctx) || functionsNamed(Ctx, MeshFunction).empty())
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
