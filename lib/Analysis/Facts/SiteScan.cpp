//===--- SiteScan.cpp - The skeleton every site scanner shares ------------===//

#include "meshguard/Analysis/Facts/SiteScan.h"
#include "llvm/ADT/DenseSet.h"

using namespace clang;
using namespace clang::dataflow;

namespace meshguard {
namespace analysis {

SiteCollector::~SiteCollector() = default;

AnalysisResult runCollectors(const FunctionDecl &FD, ASTContext &Ctx,
                             const ApiIndex &Index,
                             const AnalysisLimits &Limits,
                             OtherFunctions Others,
                             llvm::ArrayRef<SiteCollector *> Collectors) {
  llvm::DenseSet<const CallExpr *> Seen;
  auto Visit = [&](const CFGElement &Elt, const Environment &Env,
                   const OriginTable &Origins) {
    for (SiteCollector *C : Collectors)
      C->onElement(Elt, Env, Origins);
    if (const CallExpr *Call = firstVisitOfCall(Elt, Seen))
      for (SiteCollector *C : Collectors)
        C->onCall(*Call, Env, Origins);
  };
  AnalysisResult Result =
      analyzeFunction(FD, Ctx, Index, Limits, Visit, Others);
  if (!Result.ok())
    for (SiteCollector *C : Collectors)
      C->discard();
  return Result;
}

} // namespace analysis
} // namespace meshguard
