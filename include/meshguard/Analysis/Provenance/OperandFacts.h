//===--- OperandFacts.h - Provenance of a call's tensor operands -*- C++
//-*-===//

#ifndef MESHGUARD_ANALYSIS_OPERANDFACTS_H
#define MESHGUARD_ANALYSIS_OPERANDFACTS_H

#include "meshguard/Analysis/Provenance/Provenance.h"
#include "meshguard/Analysis/Provenance/TensorOperands.h"
#include <optional>

namespace meshguard {
namespace analysis {

/// What a diagnostic says about one tensor operand.
struct OperandFact {
  const clang::Expr *E;
  bool IsContainer;
  Provenance P;
  /// The call that gave the operand its provenance, if one call explains it;
  /// for a module, the construction of the module variable.
  const clang::Expr *Origin;
  /// A module given by reference: its parameters are the tensors.
  bool IsModule = false;
};

/// An operand's fact plus the formulas to combine operands with.
struct OperandReading {
  OperandFact Fact;
  const clang::dataflow::Formula *AllPlain;
  const clang::dataflow::Formula *AnyDTensor;
  const clang::dataflow::Formula *AllKnown;
};

/// Reads \p Op at the current program point; nullopt when it has no location.
std::optional<OperandReading>
readOperand(const TensorOperand &Op, const clang::dataflow::Environment &Env,
            const OriginTable &Origins);

/// Whether an operand passes a DTensor: on every path; on some path, with
/// every path known (unknown values never warn); or neither.
enum class DTensorPresence { None, Maybe, Surely };

/// The one "is it (maybe) a DTensor" test of the site scanners. A maybe is
/// confirmed against the flow condition (possiblyOnAPath), as for findings.
DTensorPresence dtensorPresence(const OperandReading &R,
                                const clang::dataflow::Environment &Env);

/// Every operand of a call's tensor argument, read and folded.
struct OperandsReading {
  llvm::SmallVector<OperandFact, 4> Facts;
  /// Every operand is plain; every operand is known.
  const clang::dataflow::Formula *AllPlain;
  const clang::dataflow::Formula *AllKnown;
};

/// Reads every operand of \p Ops; nullopt when one has no location (an
/// argument that cannot be read is unknown, never a warning).
std::optional<OperandsReading>
readOperands(const TensorOperands &Ops, const clang::dataflow::Environment &Env,
             const OriginTable &Origins);

/// Reads the module \p E denotes (`m`, `*holder`, `*ptr`); nullopt when it is
/// not a module the model tracks. Plain means "never distributed".
std::optional<OperandReading>
readModuleOperand(const clang::Expr *E, const clang::dataflow::Environment &Env,
                  const ApiIndex &Index);

/// Tensor-typed parameters and local variables of \p FD (lambdas excluded).
llvm::SmallVector<const clang::VarDecl *, 8>
tensorVariables(const clang::FunctionDecl &FD, const ApiIndex &Index);

/// The variables of \p Vars (in declaration order, as tensorVariables gives
/// them) that are surely DTensors in \p Env, nearest first. With \p Site,
/// only those declared before it: later ones cannot be named there.
llvm::SmallVector<const clang::VarDecl *, 4>
dtensorVariables(llvm::ArrayRef<const clang::VarDecl *> Vars,
                 const clang::dataflow::Environment &Env,
                 const clang::Stmt *Site = nullptr);

} // namespace analysis
} // namespace meshguard

#endif // MESHGUARD_ANALYSIS_OPERANDFACTS_H
