//===--- PartialLocalUseCheck.h - dtensor-partial-local-use -----*- C++ -*-===//

#ifndef MESHGUARD_TIDY_PARTIALLOCALUSECHECK_H
#define MESHGUARD_TIDY_PARTIALLOCALUSECHECK_H

#include "PlacementCheckBase.h"
#include "meshguard/Analysis/Placements/PlacementScan.h"
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
class PartialLocalUseCheck : public PlacementCheckBase {
public:
  using PlacementCheckBase::PlacementCheckBase;
  void onEndOfTranslationUnit() override;

private:
  /// to_local makes the shares of Partial values.
  bool interesting(const analysis::PlacementCallEntry &E) const override {
    return E.Role == analysis::PlacementRole::LocalTensor;
  }
  void analyse(const clang::FunctionDecl &FD, clang::ASTContext &Ctx) override;
  void report(const analysis::PartialLocalUse &U, clang::ASTContext &Ctx);

  /// The to_local calls given a fix-it in this TU (one each).
  llvm::DenseSet<const clang::CallExpr *> FixedToLocal;
};

} // namespace tidy
} // namespace meshguard

#endif // MESHGUARD_TIDY_PARTIALLOCALUSECHECK_H
