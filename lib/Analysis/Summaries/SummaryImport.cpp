//===--- SummaryImport.cpp - Summaries of functions of other TUs ----------===//
//
// A callee without a body in this TU gets the summary the database stored
// for its USR, turned back into the facts the sites use: the model entries
// by name, the callee-side places as ExternalSites; each kind of fact by
// its own kind's file (FactKind.h). What cannot be turned back (an entry the
// model no longer has, a parameter the declaration here does not have) is
// dropped: less is "unknown", never a finding.
//
//===----------------------------------------------------------------------===//

#include "Summaries/FactKind.h"
#include "meshguard/Analysis/Api/ApiIndex.h"
#include "meshguard/Analysis/Summaries/Summaries.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/Basic/SourceManager.h"

using namespace clang;

namespace meshguard {
namespace analysis {

bool isModelFunction(const ApiIndex &Index, const FunctionDecl &FD) {
  return Index.source(&FD) ||
         Index.collectiveKind(&FD) != CollectiveKind::None ||
         Index.isOpFunction(&FD) || Index.isDistributeModule(&FD) ||
         Index.isMeshOf(&FD) || Index.isDTensorTest(&FD) ||
         Index.isRankSource(&FD) || Index.placementCall(&FD);
}

const StoredSummary *lookupCallee(SummaryLookup *DB, const FunctionDecl &FD,
                                  const ApiIndex &Index) {
  const SourceManager &SM = FD.getASTContext().getSourceManager();
  if (!DB || FD.isDependentContext() || FD.isInvalidDecl() ||
      SM.isInSystemHeader(SM.getExpansionLoc(FD.getLocation())) ||
      isModelFunction(Index, FD))
    return nullptr;
  std::string USR = functionUSR(FD);
  // lookup() gives up-to-date entries only: stale or missing = unknown.
  return USR.empty() ? nullptr : DB->lookup(USR);
}

const FunctionSummary *SummaryProvider::imported(const FunctionDecl &FD) {
  const FunctionDecl *Key = FD.getCanonicalDecl();
  auto It = Imported.find(Key);
  if (It != Imported.end())
    return It->second.get();
  std::unique_ptr<FunctionSummary> &Slot = Imported[Key];
  const StoredSummary *Stored = lookupCallee(Database, FD, Index);
  if (!Stored)
    return nullptr;

  auto Summary = std::make_unique<FunctionSummary>();
  auto Place = [&](const ExternalSite &At) {
    ExternalSites.push_back(std::make_unique<ExternalSite>(At));
    return ExternalSites.back().get();
  };
  ImportedFunction Function{*Stored, FD.getNumParams(), Index.model(), Place};
  for (const FactKind *Kind : factKinds())
    Kind->import(Function, *Summary);
  Slot = std::move(Summary);
  return Slot.get();
}

} // namespace analysis
} // namespace meshguard
