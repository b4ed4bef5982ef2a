//===--- MixedTensorOpCheck.h - dtensor-mixed-tensor-op ---------*- C++ -*-===//

#ifndef MESHGUARD_TIDY_MIXEDTENSOROPCHECK_H
#define MESHGUARD_TIDY_MIXEDTENSOROPCHECK_H

#include "DTensorCheckBase.h"
#include "meshguard/Analysis/Facts/MixedOpSites.h"
#include <memory>

namespace meshguard {
namespace tidy {

/// Finds ATen ops that mix a DTensor with a plain tensor; the runtime throws
/// (as PyTorch does). Offers meshguard::from_local(p, mesh, {Replicate{}}).
///
/// For the user-facing documentation see:
/// docs/checks/dtensor-mixed-tensor-op.md
class MixedTensorOpCheck : public DTensorCheckBase {
public:
  using DTensorCheckBase::DTensorCheckBase;

private:
  std::vector<llvm::StringRef> interestingCallees() const override;
  std::optional<analysis::SummaryFactKind> summaryFacts() const override {
    return analysis::SummaryFactKind::MixedOpSinks;
  }
  void analyse(const clang::FunctionDecl &FD, clang::ASTContext &Ctx) override;
  /// A helper of this TU whose tensor op mixes what the call gives it: the
  /// warning at the call, a note at the op.
  void reportCallThrough(const analysis::MixedOpSite &Site,
                         clang::ASTContext &Ctx);
  void report(const clang::FunctionDecl &FD, const analysis::MixedOpSite &Site,
              clang::ASTContext &Ctx);
};

} // namespace tidy
} // namespace meshguard

#endif // MESHGUARD_TIDY_MIXEDTENSOROPCHECK_H
