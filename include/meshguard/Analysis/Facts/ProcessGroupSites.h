//===--- ProcessGroupSites.h - DTensors reaching raw c10d collectives -*- C++
//-*-===//
//
// Runs the provenance analysis on a function and reports every call to a raw
// c10d process-group collective that is given a DTensor (surely, or on some
// path), with what a fix-it needs.
//
//===----------------------------------------------------------------------===//

#ifndef MESHGUARD_ANALYSIS_PROCESSGROUPSITES_H
#define MESHGUARD_ANALYSIS_PROCESSGROUPSITES_H

#include "meshguard/Analysis/Facts/SiteScan.h"
#include "meshguard/Analysis/Provenance/FunctionAnalysis.h"
#include "meshguard/Analysis/Provenance/OperandFacts.h"
#include <memory>
#include <vector>

namespace meshguard {
namespace analysis {

struct ExternalSite;

struct ProcessGroupSite {
  const clang::CallExpr *Call;
  const ProcessGroupCollectiveEntry *Entry;
  /// A DTensor on every path (otherwise: on some path).
  bool Surely;
  /// The operands that are (or may be) DTensors.
  llvm::SmallVector<OperandFact, 4> DTensorOperands;
  /// Tensor expressions to wrap in to_local(): elements of braced lists at
  /// the call, or in the declaration of the container passed, that are surely
  /// DTensors (variables and expressions alike: `w`, `w * 2`). An element of
  /// a declaration is judged where the declaration copies it. The same
  /// element may be listed by every site its container reaches.
  llvm::SmallVector<const clang::Expr *, 4> WrapInToLocal;
  /// Elements of those lists that are DTensors on some path only: they get no
  /// fix-it.
  llvm::SmallVector<const clang::Expr *, 2> MaybeDTensorElements;
  /// For a call to a function of this TU that hands its argument to a raw
  /// collective (through a summary): that collective, in the callee.
  const clang::CallExpr *Inner = nullptr;
  /// Or, for a callee of another TU (summary database): where it is.
  const ExternalSite *InnerElsewhere = nullptr;
};

class SummaryProvider;

/// Watches a run (runCollectors) for DTensors given to raw process-group
/// collectives, into \p Sites. With \p Summaries, calls to functions of this
/// TU are followed too: an argument that the callee hands to a raw
/// collective (a tensor, a vector of tensors, a module whose parameters() it
/// passes) is read at the call.
std::unique_ptr<SiteCollector>
collectProcessGroupCalls(const ApiIndex &Index, SummaryProvider *Summaries,
                         std::vector<ProcessGroupSite> &Sites);

} // namespace analysis
} // namespace meshguard

#endif // MESHGUARD_ANALYSIS_PROCESSGROUPSITES_H
