//===--- OpWithoutShardingRuleCheck.h - dtensor-op-without-sharding-rule --===//

#ifndef MESHGUARD_TIDY_OPWITHOUTSHARDINGRULECHECK_H
#define MESHGUARD_TIDY_OPWITHOUTSHARDINGRULECHECK_H

#include "DTensorCheckBase.h"
#include "meshguard/Analysis/PlacementScan.h"

namespace meshguard {
namespace tidy {

/// Finds tensor ops that the runtime's sharding-rule table refuses on
/// sharded or Partial operands, applied to a DTensor that may be either:
/// the job dies there, often hours in. Offers to redistribute the operands
/// to Replicate first (the op then runs on the full tensors).
///
/// For the user-facing documentation see:
/// docs/checks/dtensor-op-without-sharding-rule.md
class OpWithoutShardingRuleCheck : public DTensorCheckBase {
public:
  using DTensorCheckBase::DTensorCheckBase;

private:
  std::vector<llvm::StringRef> interestingCallees() const override;
  /// Helpers of other files that return placements or use a parameter as
  /// a full value.
  std::optional<analysis::SummaryFactKind> summaryFacts() const override {
    return analysis::SummaryFactKind::Placements;
  }
  bool followWrappers() const override { return true; }
  void analyse(const clang::FunctionDecl &FD, clang::ASTContext &Ctx) override;
  void report(const analysis::UnruledOp &Op, clang::ASTContext &Ctx);
};

} // namespace tidy
} // namespace meshguard

#endif // MESHGUARD_TIDY_OPWITHOUTSHARDINGRULECHECK_H
