//===--- Provenance.h - Reading provenance at a program point ---*- C++ -*-===//

#ifndef MESHGUARD_ANALYSIS_PROVENANCE_H
#define MESHGUARD_ANALYSIS_PROVENANCE_H

#include "meshguard/Analysis/TensorState.h"

namespace meshguard {
namespace analysis {

/// What the analysis knows about a value (or every element of a container).
enum class Provenance {
  /// Nothing: a parameter, the result of an unmodelled call, a join of known
  /// and unknown. Never warned about.
  Unknown,
  /// Surely a DTensor (every element, for a container).
  DTensor,
  /// Surely plain on every path.
  Plain,
  /// Known on every path, plain on some.
  MaybePlain,
  /// Known on every path, a DTensor on some.
  MaybeDTensor,
};

Provenance classify(const TensorFacts &F,
                    const clang::dataflow::Environment &Env);
Provenance classify(const ContainerFacts &F,
                    const clang::dataflow::Environment &Env);

} // namespace analysis
} // namespace meshguard

#endif // MESHGUARD_ANALYSIS_PROVENANCE_H
