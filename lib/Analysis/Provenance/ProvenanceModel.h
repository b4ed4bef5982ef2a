//===--- ProvenanceModel.h - DTensor-or-plain, as a dataflow model -*- C++ -*-//
//
// A dataflow analysis on Clang's FlowSensitive framework that tracks, for every
// at::Tensor and container of tensors, whether it is a DTensor, a plain tensor
// or unknown. The framework handles copies, moves, references, joins and
// loops; this model only says what calls do (from the ApiModel).
//
//===----------------------------------------------------------------------===//

#ifndef MESHGUARD_ANALYSIS_PROVENANCEMODEL_H
#define MESHGUARD_ANALYSIS_PROVENANCEMODEL_H

#include "Provenance/LoopVariableWrites.h"
#include "meshguard/Analysis/Api/ApiIndex.h"
#include "meshguard/Analysis/Provenance/TensorState.h"
#include "clang/Analysis/FlowSensitive/CFGMatchSwitch.h"
#include "clang/Analysis/FlowSensitive/DataflowAnalysis.h"
#include "clang/Analysis/FlowSensitive/NoopLattice.h"
#include <functional>
#include <memory>

namespace meshguard {
namespace analysis {

class DeadValues;
class CalleeSummaries;

class ProvenanceModel
    : public clang::dataflow::DataflowAnalysis<ProvenanceModel,
                                               clang::dataflow::NoopLattice> {
public:
  /// Installs the synthetic fields on \p Env's analysis context; construct the
  /// model before the analysis creates any storage location.
  ProvenanceModel(clang::ASTContext &Ctx, clang::dataflow::Environment &Env,
                  const ApiIndex &Index, OriginTable &Origins,
                  CalleeSummaries *Summaries = nullptr);

  /// \p Hook sees the environment of the first transfer: the function's
  /// initial state.
  void
  setEntryHook(std::function<void(const clang::dataflow::Environment &)> Hook) {
    EntryHook = std::move(Hook);
  }
  /// \p Refine adds facts to the initial state (what a lambda's captures
  /// are). It runs whenever the function's first element is transferred:
  /// the framework transfers it again when it reports results.
  void setEntryRefinement(
      std::function<void(clang::dataflow::Environment &)> Refine) {
    EntryRefinement = std::move(Refine);
  }

  /// \p Dead says what dies where: its values are cleared there.
  void setDeadValues(const DeadValues *D) { Dead = D; }

  static clang::dataflow::NoopLattice initialElement() { return {}; }

  void transfer(const clang::CFGElement &Elt, clang::dataflow::NoopLattice &L,
                clang::dataflow::Environment &Env);

private:
  std::function<void(const clang::dataflow::Environment &)> EntryHook;
  std::function<void(clang::dataflow::Environment &)> EntryRefinement;
  /// The statement of the first element transferred.
  const clang::Stmt *FirstStmt = nullptr;
  /// Which range-for variables may be rebound (owned here; the transfer
  /// functions hold a pointer).
  std::unique_ptr<LoopVariableWrites> LoopWrites =
      std::make_unique<LoopVariableWrites>();
  const DeadValues *Dead = nullptr;
  clang::dataflow::CFGMatchSwitch<
      clang::dataflow::TransferState<clang::dataflow::NoopLattice>>
      TransferSwitch;
};

} // namespace analysis
} // namespace meshguard

#endif // MESHGUARD_ANALYSIS_PROVENANCEMODEL_H
