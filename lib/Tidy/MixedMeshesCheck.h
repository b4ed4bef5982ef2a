//===--- MixedMeshesCheck.h - dtensor-mixed-meshes --------------*- C++ -*-===//

#ifndef MESHGUARD_TIDY_MIXEDMESHESCHECK_H
#define MESHGUARD_TIDY_MIXEDMESHESCHECK_H

#include "DTensorCheckBase.h"
#include "meshguard/Analysis/PlacementScan.h"

namespace meshguard {
namespace tidy {

/// Finds DTensors on surely different meshes combined in one tensor op, or
/// in one list given to a libtorch function (cat, stack, clip_grad_norm_,
/// the foreach ops): the runtime throws 'DTensor operands live on different
/// meshes' when the job gets there.
///
/// For the user-facing documentation see:
/// docs/checks/dtensor-mixed-meshes.md
class MixedMeshesCheck : public DTensorCheckBase {
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
  void report(const analysis::MixedMeshSite &Site, clang::ASTContext &Ctx);
};

} // namespace tidy
} // namespace meshguard

#endif // MESHGUARD_TIDY_MIXEDMESHESCHECK_H
