//===--- UnverifiedReplicas.h - Replicate claims that are false -*- C++ -*-===//
//
// from_local(x, mesh, {Replicate{}}) says every rank holds the same x; with
// run_check off (the default) nothing verifies it. When x depends on the
// rank, every rank takes its own tensor for the replica: reductions,
// full_tensor and redistribute of it then give each rank its own wrong
// number, silently. Rank dependence is the divergence analysis's
// (Divergence/RankFlow.h).
//
//===----------------------------------------------------------------------===//

#ifndef MESHGUARD_ANALYSIS_UNVERIFIEDREPLICAS_H
#define MESHGUARD_ANALYSIS_UNVERIFIEDREPLICAS_H

#include "meshguard/Analysis/Divergence/DivergentCollectives.h"
#include <vector>

namespace meshguard {
namespace analysis {

struct UnverifiedReplica {
  /// The from_local call.
  const clang::CallExpr *Call = nullptr;
  /// Its local tensor argument, which differs per rank.
  const clang::Expr *Local = nullptr;
  /// Where the rank-dependent value comes from (mesh.get_rank(), ...).
  const clang::Expr *RankOrigin = nullptr;
  /// The verify argument (run_check) when written, else null.
  const clang::Expr *VerifyArg = nullptr;
  /// The index run_check has.
  unsigned VerifyIndex = 0;
  /// When Call is a helper's call that wraps its argument inside: the
  /// helper, and the from_local inside it.
  const clang::FunctionDecl *Helper = nullptr;
  ReplicaParameter Inner;
};

struct UnverifiedReplicaScan {
  AnalysisResult Result;
  std::vector<UnverifiedReplica> Sites;
};

/// The all-Replicate from_local calls of \p FD, unverified, whose local
/// tensor depends on the rank, and the calls of helpers that make such a
/// call with a rank-dependent argument (DivergenceMemo::replicaParameters),
/// in source order.
UnverifiedReplicaScan findUnverifiedReplicas(const clang::FunctionDecl &FD,
                                             DivergenceMemo &Memo,
                                             const ApiIndex &Index,
                                             const AnalysisLimits &Limits);

} // namespace analysis
} // namespace meshguard

#endif // MESHGUARD_ANALYSIS_UNVERIFIEDREPLICAS_H
