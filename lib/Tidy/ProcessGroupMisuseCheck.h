//===--- ProcessGroupMisuseCheck.h - dtensor-process-group-misuse -*- C++
//-*-===//

#ifndef MESHGUARD_TIDY_PROCESSGROUPMISUSECHECK_H
#define MESHGUARD_TIDY_PROCESSGROUPMISUSECHECK_H

#include "DTensorCheckBase.h"
#include "meshguard/Analysis/Facts/ProcessGroupSites.h"
#include "llvm/ADT/DenseMap.h"

namespace meshguard {
namespace tidy {

/// Finds DTensors handed to raw c10d process-group collectives
/// (ProcessGroup::broadcast, c10d::ops::allreduce, ...), which work on local
/// tensors only. Offers meshguard::to_local(x) around the argument.
///
/// For the user-facing documentation see:
/// docs/checks/dtensor-process-group-misuse.md
class ProcessGroupMisuseCheck : public DTensorCheckBase {
public:
  using DTensorCheckBase::DTensorCheckBase;

private:
  std::vector<llvm::StringRef> interestingCallees() const override;
  std::optional<analysis::SummaryFactKind> summaryFacts() const override {
    return analysis::SummaryFactKind::ProcessGroupSinks;
  }
  bool followWrappers() const override { return true; }
  void analyse(const clang::FunctionDecl &FD, clang::ASTContext &Ctx) override;
  void report(const analysis::ProcessGroupSite &Site,
              const clang::FunctionDecl &FD, clang::ASTContext &Ctx);
  /// A call to a function of this TU that hands a DTensor to a raw
  /// collective inside it: the warning at the call, a note in the callee.
  void reportCallThrough(const analysis::ProcessGroupSite &Site,
                         clang::ASTContext &Ctx);

  /// The collective whose fix-it wraps each list element (per function).
  llvm::DenseMap<const clang::Expr *, const clang::CallExpr *> WrappedAt;
};

} // namespace tidy
} // namespace meshguard

#endif // MESHGUARD_TIDY_PROCESSGROUPMISUSECHECK_H
