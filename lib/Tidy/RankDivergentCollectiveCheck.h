//===--- RankDivergentCollectiveCheck.h - dtensor-rank-divergent-collective -*-
// C++ -*-===//

#ifndef MESHGUARD_TIDY_RANKDIVERGENTCOLLECTIVECHECK_H
#define MESHGUARD_TIDY_RANKDIVERGENTCOLLECTIVECHECK_H

#include "DTensorCheckBase.h"
#include "meshguard/Analysis/Divergence/DivergentCollectives.h"
#include <memory>

namespace meshguard {
namespace tidy {

/// Finds collectives that not every rank reaches: under a rank-dependent
/// condition, in a loop with a rank-dependent trip count, after a
/// rank-dependent early exit, or in two rank-dependent branches that
/// communicate differently. Such a job hangs. Offers to hoist a gather out
/// of a rank-0-only checkpoint.
///
/// For the user-facing documentation see:
/// docs/checks/dtensor-rank-divergent-collective.md
class RankDivergentCollectiveCheck : public DTensorCheckBase {
public:
  using DTensorCheckBase::DTensorCheckBase;

private:
  std::vector<llvm::StringRef> interestingCallees() const override;
  bool followWrappers() const override { return true; }
  /// Helpers of other files that perform a collective.
  std::optional<analysis::SummaryFactKind> summaryFacts() const override {
    return analysis::SummaryFactKind::Collectives;
  }
  void analyse(const clang::FunctionDecl &FD, clang::ASTContext &Ctx) override;
  void report(const analysis::DivergentCollective &D,
              const clang::FunctionDecl &FD, clang::ASTContext &Ctx);
};

} // namespace tidy
} // namespace meshguard

#endif // MESHGUARD_TIDY_RANKDIVERGENTCOLLECTIVECHECK_H
