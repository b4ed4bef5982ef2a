//===--- Provenance.h - Reading provenance at a program point ---*- C++ -*-===//

#ifndef MESHGUARD_ANALYSIS_PROVENANCE_H
#define MESHGUARD_ANALYSIS_PROVENANCE_H

#include "meshguard/Analysis/Provenance/TensorState.h"

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

/// Whether \p F holds (surely) or can hold (possibly) on every path that
/// reaches here. Provenance formulas are built from literals (what sources
/// make), operations on them, and the atoms the framework makes where paths
/// join or loops widen. They are decided on their own, not against the flow
/// condition: that gives up correlations between branches (`if (c) a; ...
/// if (c) b;`), but a query costs the size of one formula, usually a literal,
/// instead of the whole history of the function, which made long functions
/// quadratic.
bool surely(const clang::dataflow::Formula &F,
            const clang::dataflow::Environment &Env);
bool possibly(const clang::dataflow::Formula &F,
              const clang::dataflow::Environment &Env);
/// possibly(), then confirmed against the flow condition, so that a value
/// that differs only on correlated branches is not reported. The
/// confirmation costs the function's history: use it for findings only.
bool possiblyOnAPath(const clang::dataflow::Formula &F,
                     const clang::dataflow::Environment &Env);

Provenance classify(const TensorFacts &F,
                    const clang::dataflow::Environment &Env);
Provenance classify(const ContainerFacts &F,
                    const clang::dataflow::Environment &Env);
/// A module as its parameters: Plain when it surely was never distributed.
Provenance classify(const ModuleFacts &F,
                    const clang::dataflow::Environment &Env);

} // namespace analysis
} // namespace meshguard

#endif // MESHGUARD_ANALYSIS_PROVENANCE_H
