//===--- SiteScan.h - The skeleton every site scanner shares ----*- C++ -*-===//
//
// A site scanner (CollectiveSites, MixedOpSites, ProcessGroupSites) runs the
// provenance analysis on a function and, at each call it cares about, reads
// the operands and records a site. The run, the once-per-call visit and
// "no sites unless the analysis finished" are the same for all of them and
// live here; a scanner supplies only what it does at a call.
//
//===----------------------------------------------------------------------===//

#ifndef MESHGUARD_ANALYSIS_SITESCAN_H
#define MESHGUARD_ANALYSIS_SITESCAN_H

#include "meshguard/Analysis/FunctionAnalysis.h"
#include <vector>

namespace meshguard {
namespace analysis {

/// What a scanner found in one function.
template <typename SiteT> struct SiteScan {
  AnalysisResult Result;
  /// Empty unless Result.ok().
  std::vector<SiteT> Sites;
};

/// Called once per call the analysis reaches (the first visit: the framework
/// visits a block once per iteration), with the state before the call.
using CallVisitor = llvm::function_ref<void(
    const clang::CallExpr &, const clang::dataflow::Environment &,
    const OriginTable &)>;

/// Analyses \p FD and calls \p OnCall at each call; \p OnOther, when given,
/// sees every CFG element first (e.g. declarations to remember).
AnalysisResult visitCalls(const clang::FunctionDecl &FD, clang::ASTContext &Ctx,
                          const ApiIndex &Index, const AnalysisLimits &Limits,
                          CallVisitor OnCall,
                          SummaryProvider *Summaries = nullptr,
                          ElementVisitor OnOther = nullptr);

/// visitCalls, with \p OnCall adding sites; the sites are dropped when the
/// analysis did not finish (results of a partial run are not findings).
template <typename SiteT>
SiteScan<SiteT>
scanSites(const clang::FunctionDecl &FD, clang::ASTContext &Ctx,
          const ApiIndex &Index, const AnalysisLimits &Limits,
          llvm::function_ref<void(const clang::CallExpr &,
                                  const clang::dataflow::Environment &,
                                  const OriginTable &, std::vector<SiteT> &)>
              OnCall,
          SummaryProvider *Summaries = nullptr,
          ElementVisitor OnOther = nullptr) {
  SiteScan<SiteT> Scan;
  Scan.Result = visitCalls(
      FD, Ctx, Index, Limits,
      [&](const clang::CallExpr &Call, const clang::dataflow::Environment &Env,
          const OriginTable &Origins) {
        OnCall(Call, Env, Origins, Scan.Sites);
      },
      Summaries, OnOther);
  if (!Scan.Result.ok())
    Scan.Sites.clear();
  return Scan;
}

} // namespace analysis
} // namespace meshguard

#endif // MESHGUARD_ANALYSIS_SITESCAN_H
