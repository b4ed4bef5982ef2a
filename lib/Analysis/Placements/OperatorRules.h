//===--- OperatorRules.h - The runtime's rule table, as data ---*- C++ -*-===//
//
// What the runtime's DTensor kernel does with each aten operator when an
// operand is sharded or Partial, compiled in from OperatorRules.def, which
// `meshguard_ops_doc --analysis` generates from the runtime's own rule
// table (a ctest checks that the committed file matches): the analysis and
// the runtime cannot disagree about which ops have a rule.
//
//===----------------------------------------------------------------------===//

#ifndef MESHGUARD_LIB_ANALYSIS_OPERATORRULES_H
#define MESHGUARD_LIB_ANALYSIS_OPERATORRULES_H

#include "llvm/ADT/StringRef.h"

namespace meshguard {
namespace analysis {

enum class ShardedPolicy {
  /// Some overload runs by a sharding rule.
  Rule,
  /// Every overload decomposes into other ops before the DTensor kernel.
  Decomposes,
  /// Refused on a sharded or Partial operand (no overload has a rule).
  Refused,
};

struct OperatorRule {
  llvm::StringRef Name; ///< "sum", without "aten::"
  ShardedPolicy Policy;
  llvm::StringRef Family; ///< "pointwise", "reduction", ... (Rule only)
  /// A Shard operand can give a Partial output (a reduction over the
  /// sharded dim, mm of S(1) x S(0)).
  bool PartialFromShard;
  /// A Partial operand can stay Partial: the op is linear in it.
  bool KeepsPartial;
};

/// The entry of aten operator \p Name, or null for a name libtorch does not
/// have.
const OperatorRule *findOperatorRule(llvm::StringRef Name);

/// The entry whose rule gives \p Name's result its placements: its own, or
/// for an op that decomposes, the op it becomes on matrices (`matmul` is
/// `mm`; ATen's CompositeImplicit decomposition, which the runtime's table
/// does not record).
const OperatorRule *findResultRule(llvm::StringRef Name);

} // namespace analysis
} // namespace meshguard

#endif // MESHGUARD_LIB_ANALYSIS_OPERATORRULES_H
