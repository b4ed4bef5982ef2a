//===--- ArgumentReadings.h - What an argument gives a sink, as formulas --===//
//
// The summaries ask of an argument that reaches a sink (a collective, a raw
// process-group collective) what every tensor it passes is, as a formula
// over the function's entry state: a tensor, a container of them, or a
// module (its parameters()).
//
//===----------------------------------------------------------------------===//

#ifndef MESHGUARD_LIB_ANALYSIS_SUMMARIES_ARGUMENTREADINGS_H
#define MESHGUARD_LIB_ANALYSIS_SUMMARIES_ARGUMENTREADINGS_H

#include "meshguard/Analysis/Provenance/FunctionAnalysis.h"

namespace meshguard {
namespace analysis {

class ApiIndex;

/// "plain and known" of every tensor operand of \p Arg, or of the module it
/// gives when \p IsModule; null when it cannot be read.
const clang::dataflow::Formula *
allPlainAndKnown(const clang::Expr *Arg, bool IsModule, const ApiIndex &Index,
                 const clang::dataflow::Environment &Env,
                 const OriginTable &Origins);

/// "some tensor \p Arg passes is a DTensor" (or: the module it gives was
/// distributed), or null when it cannot be read.
const clang::dataflow::Formula *
anyDTensor(const clang::Expr *Arg, bool IsModule, const ApiIndex &Index,
           const clang::dataflow::Environment &Env, const OriginTable &Origins);

/// "every tensor \p Arg passes is a DTensor" (the module it gives was
/// distributed), or null when it cannot be read.
const clang::dataflow::Formula *
everyDTensor(const clang::Expr *Arg, bool IsModule, const ApiIndex &Index,
             const clang::dataflow::Environment &Env,
             const OriginTable &Origins);

/// Every tensor \p Arg passes is known and they are not surely all plain.
bool knownNotAllPlain(const clang::Expr *Arg, bool IsModule,
                      const ApiIndex &Index,
                      const clang::dataflow::Environment &Env,
                      const OriginTable &Origins);

} // namespace analysis
} // namespace meshguard

#endif // MESHGUARD_LIB_ANALYSIS_SUMMARIES_ARGUMENTREADINGS_H
