//===--- BranchSides.cpp - The sides of a rank-dependent branch -----------===//

#include "Divergence/BranchSides.h"
#include "Divergence/RankDependence.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"

using namespace clang;

namespace meshguard {
namespace analysis {

bool containsStmt(const Stmt *Outer, const Stmt *Inner, ASTContext &Ctx) {
  if (!Outer || !Inner)
    return false;
  SourceRange R = Outer->getSourceRange();
  SourceLocation L = Inner->getBeginLoc();
  const SourceManager &SM = Ctx.getSourceManager();
  L = SM.getExpansionLoc(L);
  return !SM.isBeforeInTranslationUnit(L, SM.getExpansionLoc(R.getBegin())) &&
         !SM.isBeforeInTranslationUnit(
             SM.getExpansionRange(R.getEnd()).getEnd(), L);
}

const Stmt *firstExit(const Stmt *S) {
  if (!S || isa<LambdaExpr>(S))
    return nullptr;
  if (isa<ReturnStmt, BreakStmt, ContinueStmt, CXXThrowExpr, GotoStmt>(S))
    return S;
  for (const Stmt *Child : S->children())
    if (const Stmt *E = firstExit(Child))
      return E;
  return nullptr;
}

/// Whether \p Op is \p Cond or one of its short-circuit operands (through
/// parentheses, `!` and further `&&`/`||`).
static bool holdsOperator(const Expr *Cond, const Stmt *Op) {
  if (!Cond)
    return false;
  Cond = Cond->IgnoreImplicit()->IgnoreParens();
  if (Cond == Op)
    return true;
  if (const auto *U = dyn_cast<UnaryOperator>(Cond))
    return U->getOpcode() == UO_LNot && holdsOperator(U->getSubExpr(), Op);
  if (const auto *B = dyn_cast<BinaryOperator>(Cond))
    return B->isLogicalOp() &&
           (holdsOperator(B->getLHS(), Op) || holdsOperator(B->getRHS(), Op));
  return false;
}

/// The statement in \p S whose condition holds \p Op.
static const Stmt *statementConditionedOn(const Stmt *S, const Stmt *Op) {
  if (!S || isa<LambdaExpr>(S))
    return nullptr;
  if (holdsOperator(conditionOf(S), Op))
    return S;
  for (const Stmt *Child : S->children())
    if (const Stmt *Found = statementConditionedOn(Child, Op))
      return Found;
  return nullptr;
}

const Stmt *branchStatement(const Stmt *Terminator, const CallExpr &Call,
                            const FunctionDecl &FD, ASTContext &Ctx) {
  const auto *Op = dyn_cast_or_null<BinaryOperator>(Terminator);
  if (!Op || !Op->isLogicalOp())
    return Terminator;
  const Stmt *Branch = statementConditionedOn(FD.getBody(), Op);
  // `rank == 0 && check_replicas(t)`: the collective is what is skipped.
  if (!Branch || containsStmt(conditionOf(Branch), &Call, Ctx))
    return Terminator;
  return Branch;
}

static BranchSide sideOf(llvm::ArrayRef<const Stmt *> Stmts,
                         DivergenceMemo &Memo) {
  BranchSide Side;
  Side.Stmts.assign(Stmts.begin(), Stmts.end());
  for (const Stmt *S : Stmts) {
    std::vector<std::string> Names = Memo.sequence(S);
    Side.Sequence.insert(Side.Sequence.end(), Names.begin(), Names.end());
    std::vector<std::string> Keys = Memo.keys(S);
    Side.Keys.insert(Side.Keys.end(), Keys.begin(), Keys.end());
    Side.Exits |= firstExit(S) != nullptr;
  }
  return Side;
}

/// A switch's arms: `case A: case B: statements; break;` each.
static std::optional<std::vector<BranchSide>>
switchArms(const SwitchStmt &Switch, DivergenceMemo &Memo) {
  const auto *Body = dyn_cast_or_null<CompoundStmt>(Switch.getBody());
  if (!Body)
    return std::nullopt;
  unsigned Labels = 0, Seen = 0;
  for (const SwitchCase *C = Switch.getSwitchCaseList(); C;
       C = C->getNextSwitchCase())
    ++Labels;
  bool HasDefault = false;
  std::vector<std::vector<const Stmt *>> Arms;
  for (const Stmt *S : Body->body()) {
    if (const auto *C = dyn_cast<SwitchCase>(S)) {
      Arms.emplace_back();
      // Stacked labels open one arm.
      for (; C; C = dyn_cast<SwitchCase>(S)) {
        ++Seen;
        HasDefault |= isa<DefaultStmt>(C);
        S = C->getSubStmt();
      }
    } else if (Arms.empty()) {
      continue; // Before the first label: never runs.
    }
    Arms.back().push_back(S);
  }
  // A label inside an inner statement (Duff's device): arms are not plain.
  if (Seen != Labels)
    return std::nullopt;
  std::vector<BranchSide> Sides;
  for (size_t I = 0; I < Arms.size(); ++I) {
    std::vector<const Stmt *> &Stmts = Arms[I];
    // `case 0: { ...; break; }` ends like `case 0: ...; break;`.
    while (!Stmts.empty() && isa<CompoundStmt>(Stmts.back())) {
      const auto *Block = cast<CompoundStmt>(Stmts.back());
      Stmts.pop_back();
      Stmts.insert(Stmts.end(), Block->body_begin(), Block->body_end());
    }
    if (!Stmts.empty() && isa<BreakStmt>(Stmts.back()))
      Stmts.pop_back();
    else if (I + 1 != Arms.size())
      return std::nullopt; // Falls through into the next arm.
    Sides.push_back(sideOf(Stmts, Memo));
  }
  if (!HasDefault)
    Sides.emplace_back(); // The values no case matches run nothing.
  return Sides;
}

std::optional<std::vector<BranchSide>> branchSides(const Stmt *Branch,
                                                   DivergenceMemo &Memo) {
  auto Pair = [&](const Stmt *A, const Stmt *B) {
    std::vector<BranchSide> Sides;
    for (const Stmt *S : {A, B})
      Sides.push_back(S ? sideOf({S}, Memo) : BranchSide());
    return Sides;
  };
  if (const auto *If = dyn_cast_or_null<IfStmt>(Branch))
    return Pair(If->getThen(), If->getElse());
  if (const auto *CO = dyn_cast_or_null<ConditionalOperator>(Branch))
    return Pair(CO->getTrueExpr(), CO->getFalseExpr());
  if (const auto *Switch = dyn_cast_or_null<SwitchStmt>(Branch))
    return switchArms(*Switch, Memo);
  return std::nullopt;
}

} // namespace analysis
} // namespace meshguard
