//===--- LoopVariableWrites.h - Rebound loop variables ----------*- C++ -*-===//
//
// `for (at::Tensor &p : params)` lets the body write through p into the
// container. For provenance only a write that can change what p *is*
// matters: assigning another tensor to it, or handing it to code that could
// (a non-const reference parameter, a non-const reference or pointer to it,
// a by-reference lambda capture). Tensor methods, in-place ops included,
// keep a tensor's provenance in the model, so `p.sub_(...)` or
// `p.mutable_grad() = ...` leave the container's facts as they were.
//
//===----------------------------------------------------------------------===//

#ifndef MESHGUARD_ANALYSIS_LOOPVARIABLEWRITES_H
#define MESHGUARD_ANALYSIS_LOOPVARIABLEWRITES_H

#include "clang/AST/Decl.h"
#include "clang/AST/StmtCXX.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

namespace meshguard {
namespace analysis {

/// Answers, once per loop, whether the variable of a range-for may be
/// rebound in its body.
class LoopVariableWrites {
public:
  bool mayRebind(const clang::VarDecl &LoopVar);

private:
  llvm::DenseMap<const clang::VarDecl *, bool> Cache;
  /// Functions whose loops are all in Cache.
  llvm::DenseSet<const clang::FunctionDecl *> Walked;
};

} // namespace analysis
} // namespace meshguard

#endif // MESHGUARD_ANALYSIS_LOOPVARIABLEWRITES_H
