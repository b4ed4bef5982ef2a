//===--- SiteScan.h - The skeleton every site scanner shares ----*- C++ -*-===//
//
// A site scanner (CollectiveSites, MixedOpSites, ProcessGroupSites) watches
// the provenance analysis of a function and, at each call it cares about,
// reads the operands and records a site. The run, the once-per-call visit and
// "no sites unless the analysis finished" are the same for all of them and
// live here; a scanner supplies only what it does at a call. All of them
// watch one run per function (TUAnalysis.h).
//
//===----------------------------------------------------------------------===//

#ifndef MESHGUARD_ANALYSIS_SITESCAN_H
#define MESHGUARD_ANALYSIS_SITESCAN_H

#include "meshguard/Analysis/Provenance/FunctionAnalysis.h"
#include "llvm/ADT/ArrayRef.h"
#include <vector>

namespace meshguard {
namespace analysis {

/// What one site scanner does during a function's run: it sees every CFG
/// element (onElement) and each call the analysis reaches once (onCall),
/// with the state before it, and records its sites. Several scanners share
/// one run (TUAnalysis): the run is what costs.
class SiteCollector {
public:
  virtual ~SiteCollector();
  virtual void onElement(const clang::CFGElement &,
                         const clang::dataflow::Environment &,
                         const OriginTable &) {}
  virtual void onCall(const clang::CallExpr &,
                      const clang::dataflow::Environment &,
                      const OriginTable &) = 0;
  /// The run did not finish: results of a partial run are not findings.
  virtual void discard() = 0;
};

/// Analyses \p FD once, with every collector of \p Collectors watching; the
/// collectors' sites are discarded when the analysis did not finish.
AnalysisResult runCollectors(const clang::FunctionDecl &FD,
                             clang::ASTContext &Ctx, const ApiIndex &Index,
                             const AnalysisLimits &Limits,
                             OtherFunctions Others,
                             llvm::ArrayRef<SiteCollector *> Collectors);

/// A SiteCollector that keeps its sites in a vector it is given.
template <typename SiteT> class SiteList : public SiteCollector {
public:
  explicit SiteList(std::vector<SiteT> &Sites) : Sites(Sites) {}
  void discard() override { Sites.clear(); }

protected:
  std::vector<SiteT> &Sites;
};

} // namespace analysis
} // namespace meshguard

#endif // MESHGUARD_ANALYSIS_SITESCAN_H
