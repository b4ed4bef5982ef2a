//===--- BranchSides.h - The sides of a rank-dependent branch ---*- C++ -*-===//
//
// A collective under a rank-dependent branch is balanced when every side of
// the branch runs the same collective sequence. The branch the CFG names is
// not always the statement whose sides matter: in `if (rank == 0 && ready)`
// the `&&` ends a block of its own, and a `switch` has one side per arm.
//
//===----------------------------------------------------------------------===//

#ifndef MESHGUARD_LIB_ANALYSIS_BRANCHSIDES_H
#define MESHGUARD_LIB_ANALYSIS_BRANCHSIDES_H

#include "meshguard/Analysis/Divergence/DivergentCollectives.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Stmt.h"
#include <optional>
#include <string>
#include <vector>

namespace clang {
class CFGBlock;
} // namespace clang

namespace meshguard {
namespace analysis {

/// The `if`, `?:` or loop whose condition holds the logical operator that
/// ends a CFG block (`&&`, `||`), unless \p Call lies in that condition (the
/// short circuit itself decides then). Other terminators are returned as is.
const clang::Stmt *branchStatement(const clang::Stmt *Terminator,
                                   const clang::CallExpr &Call,
                                   const clang::FunctionDecl &FD,
                                   clang::ASTContext &Ctx);

/// One side of a branch: what it runs and whether it may leave early.
struct BranchSide {
  /// Its statements; none for a missing `else` or `default`.
  std::vector<const clang::Stmt *> Stmts;
  /// The collectives' names, as messages show them.
  std::vector<std::string> Sequence;
  /// What is compared between sides (DivergenceMemo::keys).
  std::vector<std::string> Keys;
  bool Exits = false;
};

/// The sides of an `if`, `?:` or `switch`, in source order (then before
/// else; a switch without `default` gets an empty side for the values no
/// case matches). Nothing for other statements and for switches whose arms
/// are not each `case ...: statements; break;` (fallthrough, labels nested
/// in inner statements): those are not compared.
std::optional<std::vector<BranchSide>> branchSides(const clang::Stmt *Branch,
                                                   DivergenceMemo &Memo);

/// A loop statement (for, while, do, range for).
bool isLoop(const clang::Stmt *S);

/// Every side runs the same collective sequence and none leaves early.
bool balanced(const std::vector<BranchSide> &Sides);

/// Whether the branch ending \p Dep runs the same collectives on every side
/// around \p Call (which then runs on every rank alike).
bool balancedAround(clang::CFGBlock *Dep, const clang::CallExpr &Call,
                    const clang::FunctionDecl &FD, DivergenceMemo &Memo);

/// `if (rank % 2 == 1) barrier(); if (rank % 2 == 0) barrier();`: two
/// adjacent `if`s without `else` on complementary conditions whose bodies
/// communicate alike (BalancedBranches.cpp).
bool complementedNextTo(const clang::Stmt *Branch, DivergenceMemo &Memo);

/// The first jump out of \p S (return, break, continue, throw, goto), lambda
/// bodies excluded.
const clang::Stmt *firstExit(const clang::Stmt *S);

/// True when \p Inner is \p Outer or lies inside it (by source range).
bool containsStmt(const clang::Stmt *Outer, const clang::Stmt *Inner,
                  clang::ASTContext &Ctx);

} // namespace analysis
} // namespace meshguard

#endif // MESHGUARD_LIB_ANALYSIS_BRANCHSIDES_H
