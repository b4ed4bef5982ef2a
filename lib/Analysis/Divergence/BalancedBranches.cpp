//===--- BalancedBranches.cpp - Branches whose sides communicate alike ----===//
//
// A rank-dependent branch is no divergence when every rank makes the same
// collective calls whichever side it takes: every side runs the same
// sequence (BranchSides.h), or two adjacent `if`s on complementary
// conditions run the same calls.
//
//===----------------------------------------------------------------------===//

#include "Divergence/BranchSides.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Analysis/CFG.h"
#include "clang/Lex/Lexer.h"

using namespace clang;

namespace meshguard {
namespace analysis {

bool isLoop(const Stmt *S) {
  return isa_and_nonnull<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(S);
}

/// Every side runs the same collective sequence and none leaves early.
bool balanced(const std::vector<BranchSide> &Sides) {
  return llvm::all_of(Sides, [&](const BranchSide &Side) {
    return !Side.Exits && Side.Keys == Sides.front().Keys;
  });
}

/// Whether the branch ending \p Dep runs the same collectives on every side
/// around \p Call (which then runs on every rank alike).
bool balancedAround(CFGBlock *Dep, const CallExpr &Call, const FunctionDecl &FD,
                    DivergenceMemo &Memo) {
  const Stmt *Branch =
      branchStatement(Dep->getTerminatorStmt(), Call, FD, Memo.context());
  if (!containsStmt(Branch, &Call, Memo.context()) || isLoop(Branch))
    return false;
  std::optional<std::vector<BranchSide>> Sides = branchSides(Branch, Memo);
  return Sides && balanced(*Sides);
}

/// \p E's source text without blanks, or empty inside a macro.
static std::string compactText(const Expr *E, ASTContext &Ctx) {
  CharSourceRange R = CharSourceRange::getTokenRange(E->getSourceRange());
  if (E->getBeginLoc().isMacroID() || E->getEndLoc().isMacroID())
    return "";
  std::string Out;
  for (char C :
       Lexer::getSourceText(R, Ctx.getSourceManager(), Ctx.getLangOpts()))
    if (!isspace(static_cast<unsigned char>(C)))
      Out += C;
  return Out;
}

/// Whether exactly one of \p A and \p B holds on every rank: `!c` and `c`,
/// `x == k` and `x != k`, `x < k` and `x >= k`, `x > k` and `x <= k`, and
/// `x % 2 == 0` and `x % 2 == 1` (PARCOACH's not_verifiable.c).
static bool complementary(const Expr *A, const Expr *B, ASTContext &Ctx) {
  A = A->IgnoreParenImpCasts();
  B = B->IgnoreParenImpCasts();
  for (int Swap = 0; Swap < 2; ++Swap, std::swap(A, B))
    if (const auto *Not = dyn_cast<UnaryOperator>(A);
        Not && Not->getOpcode() == UO_LNot) {
      std::string Inner = compactText(Not->getSubExpr()->IgnoreParens(), Ctx);
      if (!Inner.empty() && Inner == compactText(B, Ctx))
        return true;
    }
  const auto *BA = dyn_cast<BinaryOperator>(A);
  const auto *BB = dyn_cast<BinaryOperator>(B);
  if (!BA || !BB || !BA->isComparisonOp() || !BB->isComparisonOp())
    return false;
  std::string X = compactText(BA->getLHS(), Ctx);
  std::optional<llvm::APSInt> KA = BA->getRHS()->getIntegerConstantExpr(Ctx);
  std::optional<llvm::APSInt> KB = BB->getRHS()->getIntegerConstantExpr(Ctx);
  if (X.empty() || X != compactText(BB->getLHS(), Ctx) || !KA || !KB)
    return false;
  BinaryOperatorKind OA = BA->getOpcode(), OB = BB->getOpcode();
  if (llvm::APSInt::isSameValue(*KA, *KB) &&
      (OB == BinaryOperator::negateComparisonOp(OA)))
    return true;
  // x % 2 == 0 and x % 2 == 1, for a non-negative x (a rank).
  const auto *Mod =
      dyn_cast<BinaryOperator>(BA->getLHS()->IgnoreParenImpCasts());
  std::optional<llvm::APSInt> Two =
      Mod && Mod->getOpcode() == BO_Rem
          ? Mod->getRHS()->getIntegerConstantExpr(Ctx)
          : std::nullopt;
  return Two && *Two == 2 && OA == BO_EQ && OB == BO_EQ &&
         ((*KA == 0 && *KB == 1) || (*KA == 1 && *KB == 0));
}

/// `if (rank % 2 == 1) barrier(); if (rank % 2 == 0) barrier();`: two
/// adjacent `if`s without `else` on complementary conditions whose bodies
/// communicate alike. Every rank runs exactly one of them, the same calls.
bool complementedNextTo(const Stmt *Branch, DivergenceMemo &Memo) {
  ASTContext &Ctx = Memo.context();
  const auto *If = dyn_cast_or_null<IfStmt>(Branch);
  auto Plain = [](const IfStmt *I) {
    return I && !I->getElse() && !I->getInit() && !I->getConditionVariable() &&
           !I->isConstexpr();
  };
  if (!Plain(If))
    return false;
  DynTypedNodeList Parents = Ctx.getParents(*If);
  const auto *Block =
      Parents.size() == 1 ? Parents[0].get<CompoundStmt>() : nullptr;
  if (!Block)
    return false;
  std::optional<std::vector<BranchSide>> Mine = branchSides(If, Memo);
  if (!Mine || Mine->empty() || (*Mine)[0].Exits)
    return false;
  const Stmt *const *Begin = Block->body_begin(), *const *End =
                                                      Block->body_end();
  for (const Stmt *const *It = Begin; It != End; ++It) {
    if (*It != If)
      continue;
    for (const Stmt *const *Next : {It - 1, It + 1}) {
      if (Next < Begin || Next >= End)
        continue;
      const auto *Other = dyn_cast<IfStmt>(*Next);
      if (!Plain(Other) || !complementary(If->getCond(), Other->getCond(), Ctx))
        continue;
      std::optional<std::vector<BranchSide>> Theirs = branchSides(Other, Memo);
      if (Theirs && !Theirs->empty() && !(*Theirs)[0].Exits &&
          (*Theirs)[0].Keys == (*Mine)[0].Keys)
        return true;
    }
  }
  return false;
}

} // namespace analysis
} // namespace meshguard
