//===--- OperandFacts.h - Provenance of a call's tensor operands -*- C++ -*-===//

#ifndef MESHGUARD_ANALYSIS_OPERANDFACTS_H
#define MESHGUARD_ANALYSIS_OPERANDFACTS_H

#include "meshguard/Analysis/Provenance.h"
#include "meshguard/Analysis/TensorOperands.h"
#include <optional>

namespace meshguard {
namespace analysis {

/// What a diagnostic says about one tensor operand.
struct OperandFact {
  const clang::Expr *E;
  bool IsContainer;
  Provenance P;
  /// The call that gave the operand its provenance, if one call explains it.
  const clang::Expr *Origin;
};

/// An operand's fact plus the formulas to combine operands with.
struct OperandReading {
  OperandFact Fact;
  const clang::dataflow::Formula *AllPlain;
  const clang::dataflow::Formula *AnyDTensor;
  const clang::dataflow::Formula *AllKnown;
};

/// Reads \p Op at the current program point; nullopt when it has no location.
std::optional<OperandReading> readOperand(const TensorOperand &Op,
                                          const clang::dataflow::Environment &Env,
                                          const OriginTable &Origins);

/// Tensor-typed parameters and local variables of \p FD (lambdas excluded).
llvm::SmallVector<const clang::VarDecl *, 8>
tensorVariables(const clang::FunctionDecl &FD, const ApiIndex &Index);

/// The variables of \p Vars that are surely DTensors in \p Env.
llvm::SmallVector<const clang::VarDecl *, 4>
dtensorVariables(llvm::ArrayRef<const clang::VarDecl *> Vars,
                 const clang::dataflow::Environment &Env);

} // namespace analysis
} // namespace meshguard

#endif // MESHGUARD_ANALYSIS_OPERANDFACTS_H
