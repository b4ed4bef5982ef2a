//===--- SummaryImport.cpp - Summaries of functions of other TUs ----------===//
//
// A callee without a body in this TU gets the summary the database stored
// for its USR, turned back into the facts the sites use: the model entries
// by name, the callee-side places as ExternalSites. What cannot be turned
// back (an entry the model no longer has, a parameter the declaration here
// does not have) is dropped: less is "unknown", never a finding.
//
//===----------------------------------------------------------------------===//

#include "meshguard/Analysis/ApiIndex.h"
#include "meshguard/Analysis/Summaries.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/Basic/SourceManager.h"

using namespace clang;

namespace meshguard {
namespace analysis {

template <typename EntryT>
static const EntryT *entryNamed(const std::vector<EntryT> &Entries,
                                llvm::StringRef Name) {
  for (const EntryT &E : Entries)
    if (E.Function == Name)
      return &E;
  return nullptr;
}

bool isModelFunction(const ApiIndex &Index, const FunctionDecl &FD) {
  return Index.source(&FD) ||
         Index.collectiveKind(&FD) != CollectiveKind::None ||
         Index.isOpFunction(&FD) || Index.isDistributeModule(&FD) ||
         Index.isMeshOf(&FD) || Index.isDTensorTest(&FD) ||
         Index.isRankSource(&FD);
}

const FunctionSummary *SummaryProvider::imported(const FunctionDecl &FD) {
  const FunctionDecl *Key = FD.getCanonicalDecl();
  auto It = Imported.find(Key);
  if (It != Imported.end())
    return It->second.get();
  std::unique_ptr<FunctionSummary> &Slot = Imported[Key];
  if (Ctx.getSourceManager().isInSystemHeader(FD.getLocation()) ||
      FD.isDependentContext() || FD.isInvalidDecl() ||
      isModelFunction(Index, FD))
    return nullptr;
  std::string USR = functionUSR(FD);
  const StoredSummary *Stored = USR.empty() ? nullptr : Database->lookup(USR);
  if (!Stored)
    return nullptr;

  auto Summary = std::make_unique<FunctionSummary>();
  unsigned Params = FD.getNumParams();
  auto Place = [&](const ExternalSite &At) {
    ExternalSites.push_back(std::make_unique<ExternalSite>(At));
    return ExternalSites.back().get();
  };
  if (Stored->Return == Provenance::Plain ||
      Stored->Return == Provenance::DTensor)
    Summary->Return = Stored->Return;
  const ApiModel &Model = Index.model();
  for (const StoredSink &S : Stored->Sinks)
    if (S.Param < Params)
      if (const MeshCollectiveEntry *E =
              entryNamed(Model.MeshCollectives, S.Entry))
        Summary->Sinks.push_back(
            {S.Param, nullptr, E, S.IsModule, Place(S.At)});
  for (const StoredSink &S : Stored->ProcessGroupSinks)
    if (S.Param < Params)
      if (const ProcessGroupCollectiveEntry *E =
              entryNamed(Model.ProcessGroupCollectives, S.Entry))
        Summary->ProcessGroupSinks.push_back(
            {S.Param, nullptr, E, S.IsModule, Place(S.At)});
  for (const StoredMixedOpSink &S : Stored->MixedOpSinks)
    if (S.Param < Params)
      Summary->MixedOpSinks.push_back(
          {S.Param, nullptr, S.AsDTensor, Place(S.At)});
  for (unsigned P : Stored->KeptModules)
    if (P < Params)
      Summary->KeptModules.push_back(P);
  Slot = std::move(Summary);
  return Slot.get();
}

} // namespace analysis
} // namespace meshguard
