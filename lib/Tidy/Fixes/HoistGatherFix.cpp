//===--- HoistGatherFix.cpp - Move a gather out of a rank branch ----------===//

#include "HoistGatherFix.h"
#include "EditableSource.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace clang;
using namespace meshguard::analysis;

namespace meshguard {
namespace tidy {

namespace {

/// Variables referenced in \p S.
void referenced(const Stmt *S, llvm::SmallPtrSetImpl<const VarDecl *> &Out) {
  if (!S)
    return;
  if (const auto *DRE = dyn_cast<DeclRefExpr>(S))
    if (const auto *V = dyn_cast<VarDecl>(DRE->getDecl()))
      Out.insert(V);
  for (const Stmt *Child : S->children())
    referenced(Child, Out);
}

/// True when another variable of \p FD is named \p Name.
bool nameTaken(const FunctionDecl &FD, const VarDecl &Own) {
  struct Finder : RecursiveASTVisitor<Finder> {
    const VarDecl &Own;
    bool Found = false;
    explicit Finder(const VarDecl &Own) : Own(Own) {}
    bool VisitVarDecl(VarDecl *V) {
      if (V != &Own && V->getName() == Own.getName())
        Found = true;
      return !Found;
    }
  } F(Own);
  F.TraverseDecl(const_cast<FunctionDecl *>(&FD));
  return F.Found;
}

/// The offset of the first character of \p Loc's line.
SourceLocation lineStart(SourceLocation Loc, const SourceManager &SM) {
  std::pair<FileID, unsigned> Pos = SM.getDecomposedLoc(Loc);
  StringRef Buffer = SM.getBufferData(Pos.first);
  size_t Newline = Buffer.rfind('\n', Pos.second);
  unsigned Start = Newline == StringRef::npos ? 0 : Newline + 1;
  return Loc.getLocWithOffset(-static_cast<int>(Pos.second - Start));
}

} // namespace

SmallVector<FixItHint, 2> hoistGather(const DivergentCollective &D,
                                      const FunctionDecl &FD, ASTContext &Ctx) {
  const auto *If = dyn_cast_or_null<IfStmt>(D.Branch);
  if (D.Shape != DivergenceShape::InBranch || D.Collective.Helper || !If ||
      If->getElse() || If->getInit() || If->getConditionVariable() ||
      If->isConstexpr() ||
      If->getCond()->HasSideEffects(Ctx, /*IncludePossibleEffects=*/false))
    return {};
  const auto *Block = dyn_cast<CompoundStmt>(If->getThen());
  if (!Block)
    return {};
  const DeclStmt *Decl = nullptr;
  llvm::SmallPtrSet<const VarDecl *, 8> Before;
  for (const Stmt *S : Block->body()) {
    const auto *DS = dyn_cast<DeclStmt>(S);
    const VarDecl *V = DS && DS->isSingleDecl()
                           ? dyn_cast<VarDecl>(DS->getSingleDecl())
                           : nullptr;
    if (V && V->getInit() &&
        V->getInit()->IgnoreImplicit()->IgnoreParens() ==
            D.Collective.Call->IgnoreImplicit()) {
      Decl = DS;
      break;
    }
    referenced(S, Before);
  }
  if (!Decl)
    return {};
  const auto *Var = cast<VarDecl>(Decl->getSingleDecl());
  if (Var->isStaticLocal() || nameTaken(FD, *Var))
    return {};
  // The gather's operands: declared outside the `if`, untouched before it.
  llvm::SmallPtrSet<const VarDecl *, 8> Operands;
  referenced(Var->getInit(), Operands);
  const SourceManager &SM = Ctx.getSourceManager();
  for (const VarDecl *Op : Operands) {
    if (Before.contains(Op))
      return {};
    SourceLocation L = Op->getLocation();
    if (!SM.isBeforeInTranslationUnit(L, If->getBeginLoc()))
      return {};
  }
  SourceLocation Begin = Decl->getBeginLoc(), End = Decl->getEndLoc();
  if (!isEditable({Begin, End, If->getBeginLoc()}, SM))
    return {};
  CharSourceRange Range = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(Decl->getSourceRange()), SM,
      Ctx.getLangOpts());
  bool Invalid = false;
  StringRef Text = Lexer::getSourceText(Range, SM, Ctx.getLangOpts(), &Invalid);
  if (Range.isInvalid() || Invalid || Text.empty())
    return {};
  // Remove the declaration with its own line when it stands alone on it:
  // from the end of the line before (a removal that ends at the start of a
  // line would also take that line's first character).
  SourceLocation RemoveBegin = Begin, RemoveEnd = Range.getEnd();
  SourceLocation DeclLine = lineStart(Begin, SM);
  StringRef Indent = Lexer::getIndentationForLine(Begin, SM);
  StringRef Rest = SM.getCharacterData(RemoveEnd);
  if (DeclLine.getLocWithOffset(static_cast<int>(Indent.size())) == Begin &&
      Rest.take_until([](char C) { return C == '\n'; }).trim().empty() &&
      SM.getFileOffset(DeclLine) > 0)
    RemoveBegin = DeclLine.getLocWithOffset(-1);
  StringRef IfIndent = Lexer::getIndentationForLine(If->getBeginLoc(), SM);
  SourceLocation IfLine = lineStart(If->getBeginLoc(), SM);
  if (IfLine.getLocWithOffset(static_cast<int>(IfIndent.size())) !=
      If->getBeginLoc())
    return {};
  return {FixItHint::CreateInsertion(If->getBeginLoc(),
                                     (Text + "\n" + IfIndent).str()),
          FixItHint::CreateRemoval(
              CharSourceRange::getCharRange(RemoveBegin, RemoveEnd))};
}

} // namespace tidy
} // namespace meshguard
