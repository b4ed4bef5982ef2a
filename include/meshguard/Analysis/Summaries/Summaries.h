//===--- Summaries.h - Interprocedural facts for functions in the TU -*- C++
//-*-===//
//
// The FlowSensitive framework does not run a model inside callees, so facts
// cross function boundaries as summaries of our own, computed bottom-up on
// demand (a callee is analysed when a caller needs it, once per TU, with a
// depth bound; recursion yields "unknown"):
//  - what a function returns: a DTensor, a plain tensor, or unknown, with the
//    call inside it that decided it (for notes);
//  - which tensor parameters alone decide whether a mesh-inferred collective
//    inside it (or inside its callees) has a DeviceMesh ("sinks"), so that
//    `sync(meshguard::to_local(dt))` is diagnosed at the call; and which
//    module parameters do, through their parameters() (`sync_grads(*head)`
//    with a module never given to distribute_module);
//  - which parameters (tensors, containers, modules) alone hand a DTensor to
//    a raw process-group collective inside it ("process-group sinks"): the
//    shape of DDP's _sync_module_states, called after distribute_module.
//
// A parameter may be a pointer (`at::Tensor *t`, `Model *m`): its pointee
// is what the facts are about, and the caller's `&x` (or an unchanged
// pointer variable holding it) gives it. A lambda's call operator (or a
// function object's) is summarised like any function, and a variable the
// lambda captures by reference counts as one more input (numbered after the
// parameters), which the caller reads where it calls. A call through a
// std::function that surely holds a lambda is a call to the lambda; a
// helper given a lambda for a std::function parameter is summarised for
// that call with the parameter bound to it (CallableTargets.h).
//
// A callee defined in another TU gets the summary the whole-program pass
// stored for it (SummaryDatabase.h), with its places as ExternalSites.
//
//===----------------------------------------------------------------------===//

#ifndef MESHGUARD_ANALYSIS_SUMMARIES_H
#define MESHGUARD_ANALYSIS_SUMMARIES_H

#include "meshguard/Analysis/Api/ApiIndex.h"
#include "meshguard/Analysis/Provenance/CallableTargets.h"
#include "meshguard/Analysis/Provenance/FunctionAnalysis.h"
#include "meshguard/Analysis/Provenance/FunctionSummary.h"
#include "meshguard/Analysis/Provenance/LambdaCaptures.h"
#include "meshguard/Analysis/Provenance/Provenance.h"
#include "meshguard/Analysis/Summaries/SummaryDatabase.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include <map>
#include <memory>
#include <utility>
#include <vector>

namespace meshguard {
namespace analysis {

class SummaryProvider final : public CalleeSummaries {
public:
  SummaryProvider(clang::ASTContext &Ctx, const ApiIndex &Index,
                  AnalysisLimits Limits, unsigned MaxDepth = 3)
      : Ctx(Ctx), Index(Index), Limits(Limits), MaxDepth(MaxDepth),
        Callables(std::make_unique<CallableTargets>()),
        Captures(std::make_unique<LambdaCaptureMemo>()) {}
  ~SummaryProvider() override;

  /// The summary of \p FD; null when it has no body in this TU (and the
  /// summary database has no up-to-date entry for it), is a system header
  /// function, is being analysed (recursion), is too deep, or its analysis
  /// hit a limit.
  const FunctionSummary *get(const clang::FunctionDecl *FD) override;

  /// Callees without a body in this TU are looked up in \p DB (which must
  /// outlive the provider, and records the lookups for the TU's export).
  void setDatabase(SummaryLookup *DB) { Database = DB; }
  SummaryLookup *database() const { return Database; }
  const ApiIndex &index() const { return Index; }
  /// What the TU's lambdas capture (every run of the engine asks it).
  LambdaCaptureMemo &captures() { return *Captures; }

  /// Calls \p Fn with each argument of \p Call that the callee's summary
  /// names as a sink (none for operator calls and the API's sources).
  void forEachSinkArgument(
      const clang::CallExpr &Call,
      llvm::function_ref<void(const SinkFact &, const clang::Expr *)> Fn);

  /// Calls \p Fn with each argument of \p Call that the callee's summary
  /// names as a process-group sink.
  void forEachProcessGroupSinkArgument(
      const clang::CallExpr &Call,
      llvm::function_ref<void(const ProcessGroupSinkFact &,
                              const clang::Expr *)>
          Fn);

  /// Calls \p Fn with each argument of \p Call that the callee's summary
  /// names as a mixed-op sink.
  void forEachMixedOpSinkArgument(
      const clang::CallExpr &Call,
      llvm::function_ref<void(const MixedOpSinkFact &, const clang::Expr *)>
          Fn);

  /// Calls \p Fn with each argument of \p Call that the callee's summary
  /// names as a checkpoint sink (torch::save or torch::load inside it).
  void forEachCheckpointSinkArgument(
      const clang::CallExpr &Call,
      llvm::function_ref<void(const CheckpointSinkFact &, const clang::Expr *)>
          Fn);

  /// Calls \p Fn with each argument of \p Call that alone reaches a
  /// mesh-inferred collective: the tensor argument of a collective, or an
  /// argument a callee's summary names as a sink (the SinkFact says which
  /// collective, and whether the argument is a module).
  void forEachCollectiveArgument(
      const clang::CallExpr &Call,
      llvm::function_ref<void(const SinkFact &, const clang::Expr *)> Fn);

  /// Calls \p Fn with each argument of \p Call that alone reaches a raw
  /// process-group collective: a tensor argument of one, or an argument a
  /// callee's summary names as a process-group sink.
  void forEachProcessGroupArgument(
      const clang::CallExpr &Call,
      llvm::function_ref<void(const ProcessGroupSinkFact &,
                              const clang::Expr *)>
          Fn);

private:
  /// Collects one function's facts during its run (Summaries.cpp).
  class SummaryBuilder;
  std::unique_ptr<FunctionSummary> compute(const clang::FunctionDecl &FD);
  /// A std::function parameter of a callee (by number) bound to the lambda
  /// the call passes it.
  using ParamLambda = std::pair<unsigned, const clang::LambdaExpr *>;
  /// get(), for one call that binds std::function parameters of \p FD to
  /// lambdas: FD's summary with calls through them calling the lambdas.
  const FunctionSummary *get(const clang::FunctionDecl *FD,
                             llvm::ArrayRef<ParamLambda> Bound);
  /// The function whose summary says what \p Call's arguments reach, and
  /// that summary (null: none).
  std::pair<const clang::FunctionDecl *, const FunctionSummary *>
  summaryAt(const clang::CallExpr &Call);
  /// The three forEach*SinkArgument: calls \p Fn with each argument of
  /// \p Call that a fact of the callee's summary (in \p Member) names.
  template <typename Facts, typename Fact>
  void forEachSummaryFactArgument(
      const clang::CallExpr &Call, Facts FunctionSummary::*Member,
      llvm::function_ref<void(const Fact &, const clang::Expr *)> Fn);
  /// The database's entry for \p FD as a summary (SummaryImport.cpp).
  const FunctionSummary *imported(const clang::FunctionDecl &FD);
  /// Sinks and "kept" for module input \p P of \p FD (a parameter, or a
  /// variable a lambda captures by reference), numbered \p Param in the
  /// facts; false when the analysis hit a limit.
  bool addModuleParameterFacts(const clang::FunctionDecl &FD,
                               const clang::VarDecl &P, unsigned Param,
                               FunctionSummary &Summary);
  /// The collectives (in \p FD or its callees) surely without a mesh when
  /// \p P is assumed (not) \p Distributed; \p Kept, when given: whether P
  /// is still surely not distributed where FD returns.
  /// (Keyed by SinkFact::key(): a call here or a place elsewhere.)
  using PlainCollectives = llvm::DenseMap<const void *, SinkFact>;
  /// The raw process-group collectives surely given a DTensor.
  using DTensorProcessGroupCalls =
      llvm::DenseMap<const void *, ProcessGroupSinkFact>;
  bool collectivesWithModule(const clang::FunctionDecl &FD,
                             const clang::VarDecl &P, bool Distributed,
                             PlainCollectives &Plain,
                             DTensorProcessGroupCalls &DTensorCalls,
                             bool *Kept);
  clang::ASTContext &Ctx;
  const ApiIndex &Index;
  AnalysisLimits Limits;
  unsigned MaxDepth;
  unsigned Depth = 0;
  llvm::DenseMap<const clang::FunctionDecl *, std::unique_ptr<FunctionSummary>>
      Cache;
  llvm::DenseSet<const clang::FunctionDecl *> InProgress;
  SummaryLookup *Database = nullptr;
  /// The lambdas std::functions hold.
  std::unique_ptr<CallableTargets> Callables;
  std::unique_ptr<LambdaCaptureMemo> Captures;
  /// The functions being summarised, innermost last, with the std::function
  /// parameters each is summarised for.
  struct Frame {
    const clang::FunctionDecl *FD;
    llvm::SmallVector<CallableBinding, 1> Bound;
  };
  std::vector<Frame> Frames;
  /// Summaries for calls that bind std::function parameters, by definition
  /// and (parameter number, lambda) pairs.
  std::map<std::pair<const clang::FunctionDecl *,
                     std::vector<std::pair<unsigned, const void *>>>,
           std::unique_ptr<FunctionSummary>>
      BoundCache;
  /// Imported summaries by canonical declaration (null: none usable), and
  /// the places their facts point to.
  llvm::DenseMap<const clang::FunctionDecl *, std::unique_ptr<FunctionSummary>>
      Imported;
  std::vector<std::unique_ptr<ExternalSite>> ExternalSites;
};

} // namespace analysis
} // namespace meshguard

#endif // MESHGUARD_ANALYSIS_SUMMARIES_H
