//===--- PlacementCheckBase.h - Placement checks' common part -*- C++ -*-===//
//
// dtensor-partial-local-use, -op-without-sharding-rule, -mixed-meshes and
// -unverified-replicate analyse the same functions: those that call one of
// the API model's placement calls a check names (from_local, to_local, ...),
// their wrappers, the callers of helpers of other files that have
// placement facts in the summary database, and the functions whose module
// parameters the file's setup function distributes (ModuleSetups).
//
//===----------------------------------------------------------------------===//

#ifndef MESHGUARD_TIDY_PLACEMENTCHECKBASE_H
#define MESHGUARD_TIDY_PLACEMENTCHECKBASE_H

#include "DTensorCheckBase.h"

namespace meshguard {
namespace tidy {

class PlacementCheckBase : public DTensorCheckBase {
public:
  using DTensorCheckBase::DTensorCheckBase;

protected:
  /// Whether a call of \p E makes a function worth this check's analysis.
  virtual bool interesting(const analysis::PlacementCallEntry &E) const = 0;
  /// Other calls (qualified names) that make a function worth it.
  virtual std::vector<llvm::StringRef> alsoInteresting() const { return {}; }

private:
  std::vector<llvm::StringRef> interestingCallees() const final {
    std::vector<llvm::StringRef> Names = alsoInteresting();
    for (const analysis::PlacementCallEntry &E : Index->model().PlacementCalls)
      if (interesting(E))
        Names.emplace_back(E.Function);
    return Names;
  }
  bool followWrappers() const final { return true; }
  std::optional<analysis::SummaryFactKind> summaryFacts() const final {
    return analysis::SummaryFactKind::Placements;
  }
  bool alsoAnalyse(const clang::FunctionDecl &FD,
                   clang::ASTContext &Ctx) final {
    return engine(Ctx).placementMemo().distributedElsewhere(FD);
  }
};

} // namespace tidy
} // namespace meshguard

#endif // MESHGUARD_TIDY_PLACEMENTCHECKBASE_H
