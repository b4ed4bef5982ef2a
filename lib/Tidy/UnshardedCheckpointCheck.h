//===--- UnshardedCheckpointCheck.h - dtensor-unsharded-checkpoint -*- C++
//-*-===//

#ifndef MESHGUARD_TIDY_UNSHARDEDCHECKPOINTCHECK_H
#define MESHGUARD_TIDY_UNSHARDEDCHECKPOINTCHECK_H

#include "DTensorCheckBase.h"
#include "meshguard/Analysis/Engine/TUAnalysis.h"

namespace meshguard {
namespace tidy {

/// Finds libtorch's own serialization used on distributed state:
/// torch::save (or OutputArchive::write) given a DTensor or a module whose
/// parameters are DTensors (the runtime throws), torch::save of a DTensor's
/// to_local() on every rank under one name (the ranks overwrite each
/// other's shard; no layout is recorded), and torch::load into a DTensor or
/// a distributed module (the runtime throws). Offers
/// meshguard::checkpoint::save where the mesh is known and every rank runs
/// the save.
///
/// For the user-facing documentation see:
/// docs/checks/dtensor-unsharded-checkpoint.md
class UnshardedCheckpointCheck : public DTensorCheckBase {
public:
  using DTensorCheckBase::DTensorCheckBase;

private:
  std::vector<llvm::StringRef> interestingCallees() const override {
    return {"torch::save", "torch::load",
            "torch::serialize::OutputArchive::write"};
  }
  std::optional<analysis::SummaryFactKind> summaryFacts() const override {
    return analysis::SummaryFactKind::CheckpointSinks;
  }
  bool followWrappers() const override { return true; }
  void analyse(const clang::FunctionDecl &FD, clang::ASTContext &Ctx) override;
  /// A call of a helper that saves (loads into) the DTensor it is given:
  /// the warning at the call, a note in the helper.
  void reportCallThrough(const analysis::CheckpointSite &Site,
                         clang::ASTContext &Ctx);
  void report(const analysis::CheckpointSite &Site,
              const clang::FunctionDecl &FD,
              const analysis::RankAtCallsScan &Rank, clang::ASTContext &Ctx);
  /// The fix-it of a save every rank runs; \p NoMesh says that a module's
  /// mesh (\p Mesh, the distributing call's argument) cannot be named here.
  std::optional<clang::FixItHint> saveFix(const analysis::CheckpointSite &Site,
                                          const clang::FunctionDecl &FD,
                                          const clang::Expr *Mesh, bool &NoMesh,
                                          clang::ASTContext &Ctx);
};

} // namespace tidy
} // namespace meshguard

#endif // MESHGUARD_TIDY_UNSHARDEDCHECKPOINTCHECK_H
