//===--- PartialLocalUseCheck.h - dtensor-partial-local-use -----*- C++ -*-===//

#ifndef MESHGUARD_TIDY_PARTIALLOCALUSECHECK_H
#define MESHGUARD_TIDY_PARTIALLOCALUSECHECK_H

#include "DTensorCheckBase.h"
#include "meshguard/Analysis/PlacementScan.h"
#include "llvm/ADT/DenseSet.h"

namespace meshguard {
namespace tidy {

/// Finds the local tensor of a DTensor that may be Partial (to_local())
/// used as the full value: its item(), a non-linear op on it, printed or
/// saved. Every rank then gets its own wrong number, silently. Offers
/// full_tensor() in place of to_local().
///
/// For the user-facing documentation see:
/// docs/checks/dtensor-partial-local-use.md
class PartialLocalUseCheck : public DTensorCheckBase {
public:
  using DTensorCheckBase::DTensorCheckBase;
  void onEndOfTranslationUnit() override;

private:
  std::vector<llvm::StringRef> interestingCallees() const override;
  /// Helpers of other files that return placements or use a parameter as
  /// a full value.
  std::optional<analysis::SummaryFactKind> summaryFacts() const override {
    return analysis::SummaryFactKind::Placements;
  }
  bool followWrappers() const override { return true; }
  void analyse(const clang::FunctionDecl &FD, clang::ASTContext &Ctx) override;
  void report(const analysis::PartialLocalUse &U, clang::ASTContext &Ctx);

  /// The to_local calls given a fix-it in this TU (one each).
  llvm::DenseSet<const clang::CallExpr *> FixedToLocal;
};

} // namespace tidy
} // namespace meshguard

#endif // MESHGUARD_TIDY_PARTIALLOCALUSECHECK_H
