//===--- FunctionAnalysis.h - Analyse a function ----------------*- C++ -*-===//
//
// Runs ProvenanceModel over one function with explicit limits and reports why
// it stopped. Unlike clang::dataflow::diagnoseFunction, hitting a limit is an
// outcome the caller sees (and reports), never a silent "no findings".
//
//===----------------------------------------------------------------------===//

#ifndef MESHGUARD_ANALYSIS_FUNCTIONANALYSIS_H
#define MESHGUARD_ANALYSIS_FUNCTIONANALYSIS_H

#include "meshguard/Analysis/Api/ApiIndex.h"
#include "meshguard/Analysis/Provenance/TensorState.h"
#include "clang/Analysis/CFG.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace meshguard {
namespace analysis {

struct AnalysisLimits {
  /// Conflicts of the CDCL SAT solver, for all queries of a function
  /// together. Typical functions need none or a few hundred.
  std::int64_t MaxSATConflicts = 100'000;
  /// Basic-block visits before giving up (upstream default: 20000).
  std::int32_t MaxBlockVisits = 20'000;
  /// Functions with more CFG elements than this are not analysed.
  std::int32_t MaxFunctionElements = 20'000;
};

enum class AnalysisOutcome {
  Done,
  /// No CFG could be built (e.g. the body has errors).
  NoCFG,
  /// The body contains compile errors.
  HasErrors,
  SATLimit,
  BlockVisitLimit,
  TooLarge,
  OtherError,
};

struct AnalysisResult {
  AnalysisOutcome Outcome = AnalysisOutcome::Done;
  std::string Message;
  /// Work done by the SAT solver for this function.
  std::int64_t SATQueries = 0;
  std::int64_t SATConflicts = 0;
  bool ok() const { return Outcome == AnalysisOutcome::Done; }
};

/// Called once per CFG element, after the analysis converged, with the state
/// before that element. Results seen by the visitor must be discarded when
/// the returned outcome is not Done.
using ElementVisitor = llvm::function_ref<void(
    const clang::CFGElement &, const clang::dataflow::Environment &,
    const OriginTable &)>;

class CalleeSummaries;
class LambdaCaptureMemo;

/// What a run may read of other functions, owned by the TU's engine (each
/// may be null: then unknown): the summaries of the functions it calls, and
/// for a lambda, what its captures are where the enclosing function
/// creates it.
struct OtherFunctions {
  CalleeSummaries *Summaries = nullptr;
  LambdaCaptureMemo *Captures = nullptr;
};

/// Called once with the function's initial environment (parameters hold
/// their fresh, unconstrained provenance).
using EntryVisitor =
    llvm::function_ref<void(const clang::dataflow::Environment &)>;

/// Called once with the state where the function returns (the join over its
/// return paths), if it can return.
using ExitVisitor =
    llvm::function_ref<void(const clang::dataflow::Environment &)>;

/// Writes assumptions into the initial environment (e.g. "this module
/// parameter was never distributed").
using EntryRefiner = llvm::function_ref<void(clang::dataflow::Environment &)>;

/// Analyses \p FD. Calls to functions of this TU that the API model does not
/// describe use \p Others' summaries, and a lambda its captures, when given.
AnalysisResult analyzeFunction(const clang::FunctionDecl &FD,
                               clang::ASTContext &Ctx, const ApiIndex &Index,
                               const AnalysisLimits &Limits,
                               ElementVisitor Visit, OtherFunctions Others = {},
                               EntryVisitor OnEntry = nullptr,
                               ExitVisitor OnExit = nullptr,
                               EntryRefiner Refine = nullptr);

/// The guards every analysis of a function passes first (the provenance
/// run and the rank-divergence analysis alike): a body, not dependent, no
/// compile errors, not over MaxFunctionElements statements. Done when the
/// function may be analysed, else why not.
AnalysisOutcome admitFunction(const clang::FunctionDecl &FD,
                              const AnalysisLimits &Limits);

/// The CFG of \p FD for the lighter analyses (rank divergence,
/// placements), or null with \p Outcome saying why: admitFunction's guards,
/// then the build and MaxFunctionElements.
std::unique_ptr<clang::CFG> buildAdmittedCFG(const clang::FunctionDecl &FD,
                                             clang::ASTContext &Ctx,
                                             const AnalysisLimits &Limits,
                                             AnalysisOutcome &Outcome);

/// Each call of \p Cfg with its block, in CFG order.
template <typename Fn> void forEachCall(clang::CFG &Cfg, Fn &&Visit) {
  for (clang::CFGBlock *B : Cfg)
    for (const clang::CFGElement &E : *B)
      if (std::optional<clang::CFGStmt> S = E.getAs<clang::CFGStmt>())
        if (const auto *Call = llvm::dyn_cast<clang::CallExpr>(S->getStmt()))
          Visit(B, *Call);
}

/// Whether \p G has more elements than MaxFunctionElements.
bool exceedsElements(const clang::CFG &G, const AnalysisLimits &Limits);

/// "SAT solver limit", "block visit limit", ... for messages.
llvm::StringRef describe(AnalysisOutcome Outcome);

/// The call \p Elt evaluates, the first time the analysis reaches it (the
/// framework visits a block once per iteration); null otherwise. \p Seen
/// remembers the calls already returned.
inline const clang::CallExpr *
firstVisitOfCall(const clang::CFGElement &Elt,
                 llvm::DenseSet<const clang::CallExpr *> &Seen) {
  auto S = Elt.getAs<clang::CFGStmt>();
  if (!S)
    return nullptr;
  const auto *Call = llvm::dyn_cast<clang::CallExpr>(S->getStmt());
  if (!Call || !Seen.insert(Call).second)
    return nullptr;
  return Call;
}

} // namespace analysis
} // namespace meshguard

#endif // MESHGUARD_ANALYSIS_FUNCTIONANALYSIS_H
