//===--- DeadValues.h - Forget values whose objects have died -*- C++ -*-===//
//
// The framework keeps the value of every storage location ever written, and
// LLVM 19's Environment::join copies all of them at every block. A
// temporary's fields would so outlive it by the rest of the function: with
// N branches that is O(N^2) time and memory. At the end of each block this
// clears the fields of the temporaries its full-expressions made and of the
// locals whose lifetime ended in it.
//
// Clearing one value costs a pass over the environment's map (MapVector's
// erase), as much as the join that follows the block, so a block clears at
// most MaxReleasesPerBlock objects (its last ones): never more than a
// constant times the framework's own work. Blocks that lead only to the exit
// clear nothing: no join would copy what they leave.
//
//===----------------------------------------------------------------------===//

#ifndef MESHGUARD_ANALYSIS_DEADVALUES_H
#define MESHGUARD_ANALYSIS_DEADVALUES_H

#include "clang/AST/ParentMap.h"
#include "clang/Analysis/CFG.h"
#include "clang/Analysis/FlowSensitive/DataflowEnvironment.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/PointerUnion.h"
#include "llvm/ADT/SmallVector.h"

namespace meshguard {
namespace analysis {

class DeadValues {
public:
  static constexpr unsigned MaxReleasesPerBlock = 16;

  /// \p Body is the body \p G was built from.
  DeadValues(const clang::CFG &G, const clang::Stmt &Body);

  /// After the last statement of a block: clears what died in the block.
  void releaseAfter(const clang::CFGElement &Elt,
                    clang::dataflow::Environment &Env) const;

private:
  /// A temporary (the record prvalue it holds) or a local variable.
  using DeadObject =
      llvm::PointerUnion<const clang::Expr *, const clang::VarDecl *>;

  void collectBlock(const clang::CFGBlock &B);
  /// The statement \p S is the whole expression of (an expression statement,
  /// a condition, a return), or null when \p S is part of a larger
  /// expression or a declaration's initializer (which ends at its DeclStmt).
  const clang::Stmt *enclosingStatement(const clang::Stmt &S) const;

  clang::ParentMap Parents;
  /// The objects dead after each block, by the block's last statement, in
  /// the order they died.
  llvm::DenseMap<const clang::Stmt *, llvm::SmallVector<DeadObject, 4>>
      DeadAfter;
};

} // namespace analysis
} // namespace meshguard

#endif // MESHGUARD_ANALYSIS_DEADVALUES_H
