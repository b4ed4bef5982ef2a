//===--- CollectiveWithoutMeshCheck.h - The check ---------------*- C++ -*-===//

#ifndef MESHGUARD_TIDY_COLLECTIVEWITHOUTMESHCHECK_H
#define MESHGUARD_TIDY_COLLECTIVEWITHOUTMESHCHECK_H

#include "DTensorCheckBase.h"
#include "meshguard/Analysis/Facts/CollectiveSites.h"
#include "llvm/ADT/DenseSet.h"

namespace meshguard {
namespace tidy {

/// Finds calls to mesh-inferred collectives (meshguard::dist::broadcast_, ...)
/// whose tensor arguments are all plain tensors: the runtime cannot find a
/// DeviceMesh and throws. Offers the mesh-explicit guarded:: form.
///
/// For the user-facing documentation see:
/// docs/checks/dtensor-collective-without-mesh.md
class CollectiveWithoutMeshCheck : public DTensorCheckBase {
public:
  CollectiveWithoutMeshCheck(llvm::StringRef Name,
                             clang::tidy::ClangTidyContext *Context);
  void storeOptions(clang::tidy::ClangTidyOptions::OptionMap &Opts) override;

private:
  std::vector<llvm::StringRef> interestingCallees() const override;
  std::optional<analysis::SummaryFactKind> summaryFacts() const override {
    return analysis::SummaryFactKind::MeshSinks;
  }
  bool followWrappers() const override { return true; }
  bool wantsMaybeNoMesh() const override { return StrictMode; }
  void analyse(const clang::FunctionDecl &FD, clang::ASTContext &Ctx) override;
  void report(const clang::FunctionDecl &FD,
              const analysis::CollectiveSite &Site, clang::ASTContext &Ctx);

  void reportThroughCall(const clang::FunctionDecl &FD,
                         const analysis::CollectiveSite &Site,
                         clang::ASTContext &Ctx);
  /// A module argument never given to distribute_module: the warning, a note
  /// at its declaration, and (once per module) the fix that distributes it.
  void reportUndistributedModule(const clang::FunctionDecl &FD,
                                 const analysis::CollectiveSite &Site,
                                 clang::ASTContext &Ctx);

  const bool StrictMode;
  /// The fix that distributes \p Module, unless it already has one here.
  std::optional<clang::FixItHint> distributeOnce(const clang::FunctionDecl &FD,
                                                 const clang::VarDecl &Module);
  /// Modules already given the distribute_module fix in this TU.
  llvm::DenseSet<const clang::VarDecl *> FixedModules;
};

} // namespace tidy
} // namespace meshguard

#endif // MESHGUARD_TIDY_COLLECTIVEWITHOUTMESHCHECK_H
