//===--- UnverifiedReplicateCheck.h - dtensor-unverified-replicate -------===//

#ifndef MESHGUARD_TIDY_UNVERIFIEDREPLICATECHECK_H
#define MESHGUARD_TIDY_UNVERIFIEDREPLICATECHECK_H

#include "PlacementCheckBase.h"
#include "meshguard/Analysis/Divergence/UnverifiedReplicas.h"

namespace meshguard {
namespace tidy {

/// Finds from_local(x, mesh, {Replicate{}}) of a tensor that differs per
/// rank, with run_check off: every rank takes its own tensor for the
/// replica, and what is computed from it is wrong, silently. Offers
/// run_check=true (the runtime then verifies the replicas and throws). A
/// helper that makes such a call with its parameter is reported where it is
/// given a rank-dependent argument.
///
/// For the user-facing documentation see:
/// docs/checks/dtensor-unverified-replicate.md
class UnverifiedReplicateCheck : public PlacementCheckBase {
public:
  using PlacementCheckBase::PlacementCheckBase;

private:
  /// The calls that can be asked to verify a replica (from_local).
  bool interesting(const analysis::PlacementCallEntry &E) const override {
    return E.VerifyArg >= 0;
  }
  /// A module's tensor-parallel style wraps a plain input unverified.
  std::vector<llvm::StringRef> alsoInteresting() const override {
    return {"meshguard::parallel_forward", "meshguard::parallel_input"};
  }
  void analyse(const clang::FunctionDecl &FD, clang::ASTContext &Ctx) override;
  /// Warns at Call (once per place), with the run_check fix-it when one
  /// applies; false when that place was already reported.
  bool warnAt(const clang::CallExpr *Call, const clang::Expr *VerifyArg,
              unsigned VerifyIndex, clang::ASTContext &Ctx);
  void report(const analysis::UnverifiedReplica &R, clang::ASTContext &Ctx);
  void report(const analysis::LocalReplica &R, clang::ASTContext &Ctx);
  void report(const analysis::ReplicaSourceCandidate &C,
              const clang::Expr &RankOrigin, clang::ASTContext &Ctx);
};

} // namespace tidy
} // namespace meshguard

#endif // MESHGUARD_TIDY_UNVERIFIEDREPLICATECHECK_H
