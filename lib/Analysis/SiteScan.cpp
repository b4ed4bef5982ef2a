//===--- SiteScan.cpp - The skeleton every site scanner shares ------------===//

#include "meshguard/Analysis/SiteScan.h"
#include "llvm/ADT/DenseSet.h"

using namespace clang;
using namespace clang::dataflow;

namespace meshguard {
namespace analysis {

AnalysisResult visitCalls(const FunctionDecl &FD, ASTContext &Ctx,
                          const ApiIndex &Index, const AnalysisLimits &Limits,
                          CallVisitor OnCall, SummaryProvider *Summaries,
                          ElementVisitor OnOther) {
  llvm::DenseSet<const CallExpr *> Seen;
  auto Visit = [&](const CFGElement &Elt, const Environment &Env,
                   const OriginTable &Origins) {
    if (OnOther)
      OnOther(Elt, Env, Origins);
    if (const CallExpr *Call = firstVisitOfCall(Elt, Seen))
      OnCall(*Call, Env, Origins);
  };
  return analyzeFunction(FD, Ctx, Index, Limits, Visit, Summaries);
}

} // namespace analysis
} // namespace meshguard
