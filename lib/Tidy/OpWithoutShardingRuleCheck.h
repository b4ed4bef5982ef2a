//===--- OpWithoutShardingRuleCheck.h - dtensor-op-without-sharding-rule --===//

#ifndef MESHGUARD_TIDY_OPWITHOUTSHARDINGRULECHECK_H
#define MESHGUARD_TIDY_OPWITHOUTSHARDINGRULECHECK_H

#include "PlacementCheckBase.h"
#include "meshguard/Analysis/Placements/PlacementScan.h"

namespace meshguard {
namespace tidy {

/// Finds tensor ops that the runtime's sharding-rule table refuses on
/// sharded or Partial operands, applied to a DTensor that may be either:
/// the job dies there, often hours in. Offers to redistribute the operands
/// to Replicate first (the op then runs on the full tensors).
///
/// For the user-facing documentation see:
/// docs/checks/dtensor-op-without-sharding-rule.md
class OpWithoutShardingRuleCheck : public PlacementCheckBase {
public:
  using PlacementCheckBase::PlacementCheckBase;

private:
  bool interesting(const analysis::PlacementCallEntry &E) const override {
    return analysis::placesTensors(E.Role);
  }
  void analyse(const clang::FunctionDecl &FD, clang::ASTContext &Ctx) override;
  void report(const analysis::UnruledOp &Op, clang::ASTContext &Ctx);
};

} // namespace tidy
} // namespace meshguard

#endif // MESHGUARD_TIDY_OPWITHOUTSHARDINGRULECHECK_H
