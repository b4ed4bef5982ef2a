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

#include "meshguard/Analysis/OperandFacts.h"
#include "meshguard/Analysis/SiteScan.h"
#include <memory>
#include <vector>

namespace meshguard {
namespace analysis {

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
};

/// Watches a run (runCollectors) for the serialization calls above, into
/// \p Sites.
std::unique_ptr<SiteCollector>
collectCheckpointCalls(const ApiIndex &Index,
                       std::vector<CheckpointSite> &Sites);

} // namespace analysis
} // namespace meshguard

#endif // MESHGUARD_ANALYSIS_CHECKPOINTSITES_H
