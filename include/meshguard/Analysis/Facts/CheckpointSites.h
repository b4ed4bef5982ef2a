//===--- CheckpointSites.h - libtorch serialization of DTensors -*- C++ -*-===//
//
// Watches a function's provenance run for libtorch's own serialization
// (torch::save, torch::load, OutputArchive::write) given distributed state:
// a DTensor, a container holding one, the local tensor to_local() took from
// a DTensor, or a module (whose parameters may be DTensors: the check
// decides, with what it knows of the module's distribution).
//
//===----------------------------------------------------------------------===//

#ifndef MESHGUARD_ANALYSIS_CHECKPOINTSITES_H
#define MESHGUARD_ANALYSIS_CHECKPOINTSITES_H

#include "meshguard/Analysis/Facts/SiteScan.h"
#include "meshguard/Analysis/Provenance/OperandFacts.h"
#include <memory>
#include <optional>
#include <utility>
#include <vector>

namespace meshguard {
namespace analysis {

struct ExternalSite;
class SummaryProvider;

enum class CheckpointCall { Save, Load, ArchiveWrite };

enum class CheckpointValue {
  /// A DTensor on every path (or a container holding one).
  DTensor,
  /// A plain tensor that to_local() took from a DTensor.
  LocalShard,
  /// A module: Distributed says whether its parameters surely are DTensors.
  Module,
};

struct CheckpointSite {
  const clang::CallExpr *Call = nullptr;
  CheckpointCall Kind = CheckpointCall::Save;
  CheckpointValue What = CheckpointValue::DTensor;
  /// The argument serialized (or loaded into).
  const clang::Expr *Value = nullptr;
  /// The tensor operand found (the argument, or an element of a list).
  const clang::Expr *Operand = nullptr;
  bool IsContainer = false;
  /// Where the DTensor comes from; the to_local call (LocalShard); the
  /// module's construction (Module), when one call explains it.
  const clang::Expr *Origin = nullptr;
  /// Module: distributed on every path (the provenance model's fact).
  bool Distributed = false;
  /// For a call of a function that saves (or loads into) its argument:
  /// that call inside it, in this TU or (summary database) elsewhere.
  const clang::CallExpr *Inner = nullptr;
  const ExternalSite *InnerElsewhere = nullptr;
};

/// The libtorch serialization call \p FD is, and the argument that holds
/// the value saved or loaded into.
std::optional<std::pair<CheckpointCall, unsigned>>
checkpointCall(const clang::FunctionDecl *FD);

/// Watches a run (runCollectors) for the serialization calls above, into
/// \p Sites. With \p Summaries, calls of functions that save their argument
/// (or load into it) are sites too, when the argument is a DTensor.
std::unique_ptr<SiteCollector>
collectCheckpointCalls(const ApiIndex &Index, SummaryProvider *Summaries,
                       std::vector<CheckpointSite> &Sites);

} // namespace analysis
} // namespace meshguard

#endif // MESHGUARD_ANALYSIS_CHECKPOINTSITES_H
