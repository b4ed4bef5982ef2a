//===--- MixedOpSites.h - Tensor ops mixing DTensors and plain tensors -*- C++
//-*-===//

#ifndef MESHGUARD_ANALYSIS_MIXEDOPSITES_H
#define MESHGUARD_ANALYSIS_MIXEDOPSITES_H

#include "meshguard/Analysis/Facts/SiteScan.h"
#include "meshguard/Analysis/Provenance/FunctionAnalysis.h"
#include "meshguard/Analysis/Provenance/OperandFacts.h"
#include <memory>
#include <vector>

namespace meshguard {
namespace analysis {

struct ExternalSite;

/// A tensor op (ATen function, operator or Tensor method, in-place forms such
/// as `w += b` and `w.add_(b)` included) with a surely-DTensor operand and a
/// surely-plain one: the runtime throws "mixed torch.Tensor and DTensor", as
/// PyTorch does. Operands include the elements of a braced tensor list
/// (`at::cat({w, b})`).
struct MixedOpSite {
  const clang::CallExpr *Call;
  OperandFact DTensor;
  llvm::SmallVector<OperandFact, 2> Plain;
  llvm::SmallVector<const clang::VarDecl *, 4> DTensorVars;
  /// The tensor an in-place op modifies (`p` in `p += w`, `p.add_(w)`), if
  /// any. A plain one cannot be wrapped: the op would update a temporary.
  const clang::Expr *InPlaceSelf = nullptr;
  /// For a call to a function of this TU whose tensor op mixes given this
  /// argument (through a summary): that op, in the callee.
  const clang::CallExpr *Inner = nullptr;
  /// Or, for a callee of another TU (summary database): where it is.
  const ExternalSite *InnerElsewhere = nullptr;
};

/// The tensor operands of \p Call if it is a tensor op (at least two, or
/// it is no mix candidate), else empty.
llvm::SmallVector<const clang::Expr *, 4>
tensorOpOperands(const clang::CallExpr &Call, const ApiIndex &Index);

class SummaryProvider;

/// Watches a run of \p FD (runCollectors) for tensor ops mixing DTensors
/// and plain tensors, into \p Sites. With \p Summaries, a DTensor (or plain
/// tensor) handed to a function of this TU whose tensor op mixes it with a
/// plain tensor (a DTensor) is found at the call.
std::unique_ptr<SiteCollector> collectMixedOps(const clang::FunctionDecl &FD,
                                               const ApiIndex &Index,
                                               SummaryProvider *Summaries,
                                               std::vector<MixedOpSite> &Sites);

} // namespace analysis
} // namespace meshguard

#endif // MESHGUARD_ANALYSIS_MIXEDOPSITES_H
