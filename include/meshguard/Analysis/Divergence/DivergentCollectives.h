//===--- DivergentCollectives.h - Collectives not every rank reaches -*- C++
//-*-===//
//
// Finds collectives (explicit, implicit, or a call of a helper that performs
// one: a helper of this TU, or of another file through the summary
// database) whose execution is control-dependent on a condition
// that differs per rank: inside `if (rank == 0)`, in a loop whose trip count
// is rank-dependent, or after a rank-dependent early exit. A branch whose two
// sides run the same collective sequence is balanced and not reported.
//
//===----------------------------------------------------------------------===//

#ifndef MESHGUARD_ANALYSIS_DIVERGENTCOLLECTIVES_H
#define MESHGUARD_ANALYSIS_DIVERGENTCOLLECTIVES_H

#include "meshguard/Analysis/Api/ApiIndex.h"
#include "meshguard/Analysis/Provenance/FunctionAnalysis.h"
#include "clang/AST/Expr.h"
#include "clang/AST/Stmt.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace meshguard {
namespace analysis {

class RankDependenceTU;
struct MarkedRankFlow;
class SummaryLookup;
struct ExternalSite;

/// A call that communicates: a collective itself, or a call of a function
/// that performs one (\c Inner, or \c InnerElsewhere for a helper of
/// another file, is then the collective inside).
struct CollectiveCall {
  const clang::CallExpr *Call = nullptr;
  /// What every rank must call, e.g. "meshguard::full_tensor".
  std::string Name;
  /// For a helper: the helper and the collective it performs.
  const clang::FunctionDecl *Helper = nullptr;
  const clang::CallExpr *Inner = nullptr;
  std::string InnerName;
  /// For a helper summarised in another file: where its collective is
  /// (then Inner is null).
  const ExternalSite *InnerElsewhere = nullptr;
};

enum class DivergenceShape {
  /// Inside one side of a rank-dependent branch.
  InBranch,
  /// Both sides communicate, in a different order or number.
  DifferentSequences,
  /// In a loop whose trip count is rank-dependent.
  LoopTripCount,
  /// After a rank-dependent return/break/continue/throw.
  AfterEarlyExit,
  /// A call of a helper whose collective runs only when a parameter says
  /// so, given a rank-dependent argument for it (reported at the call: the
  /// helper is right, its caller is not).
  RankDependentArgument,
};

/// A collective a function runs only when a condition on one of its
/// parameters holds (`if (doit) pg->barrier();`): right in itself, a hang
/// when a caller passes a value that differs per rank.
struct ParameterControl {
  unsigned Param = 0;
  /// The condition on the parameter, or the argument passing it on to a
  /// helper that it controls.
  const clang::Expr *Condition = nullptr;
  /// What runs: the collective, or the call of that helper.
  CollectiveCall Collective;
};

/// A parameter that a helper wraps as a replica (from_local with every
/// placement Replicate, run_check off), itself or through helpers: right
/// in itself, a false claim when a caller passes a value that differs per
/// rank (dtensor-unverified-replicate).
struct ReplicaParameter {
  unsigned Param = 0;
  /// The from_local call and the function that makes it (in this TU), or
  /// where it is in another file.
  const clang::CallExpr *FromLocal = nullptr;
  const clang::FunctionDecl *FromLocalIn = nullptr;
  const ExternalSite *Elsewhere = nullptr;
};

struct DivergentCollective {
  CollectiveCall Collective;
  DivergenceShape Shape = DivergenceShape::InBranch;
  /// The statement whose rank-dependent condition decides (if, loop, ?:).
  const clang::Stmt *Branch = nullptr;
  const clang::Expr *Condition = nullptr;
  /// Where the rank-dependent value in the condition comes from.
  const clang::Expr *RankOrigin = nullptr;
  /// The early exit, for AfterEarlyExit.
  const clang::Stmt *Exit = nullptr;
  /// The two sides' collective sequences, for DifferentSequences.
  std::string ThenSequence, ElseSequence;
  /// For RankDependentArgument: the argument, the helper's parameter, and
  /// the condition on it inside the helper (Condition is then null).
  const clang::Expr *Argument = nullptr;
  const clang::ParmVarDecl *Param = nullptr;
  const clang::Expr *ParamCondition = nullptr;
};

struct DivergenceScan {
  AnalysisResult Result;
  std::vector<DivergentCollective> Sites;
};

/// Per-TU facts shared by every function of the TU: which fields, variables,
/// parameters and helper results are rank-dependent (flow-insensitively),
/// and which helpers perform a collective. Build one per TU; it must not
/// outlive the AST.
class DivergenceMemo {
public:
  /// \p Limits bound the analysis of the helpers whose collective a
  /// parameter decides.
  DivergenceMemo(clang::ASTContext &Ctx, const ApiIndex &Index,
                 AnalysisLimits Limits = AnalysisLimits());
  ~DivergenceMemo();
  clang::ASTContext &context() const { return Ctx; }
  /// Built on first use: the summary pass asks only performed().
  RankDependenceTU &rankFacts();

  /// Functions without a body in this TU are looked up in \p DB (which
  /// must outlive the memo); an up-to-date entry's collective counts.
  void setDatabase(SummaryLookup *DB) { Database = DB; }

  /// The collective \p Call is or performs, if any.
  std::optional<CollectiveCall> collective(const clang::CallExpr &Call);
  /// Collective names in evaluation order inside \p S (lambda bodies, which
  /// run when called, excluded).
  std::vector<std::string> sequence(const clang::Stmt *S);
  /// What \p S communicates, as compared between the sides of a branch:
  /// a helper's own collectives in its place, a nested branch whose sides
  /// agree once, and each collective qualified by the mesh-dim group it
  /// runs on, the loop it repeats in, or the branch side it needs
  /// (CollectiveKeys.cpp).
  std::vector<std::string> keys(const clang::Stmt *S);

  /// The first collective \p FD performs (itself or in a helper); for a
  /// function without a body here, the database's entry.
  const std::optional<CollectiveCall> &performed(const clang::FunctionDecl &FD);

  /// The collectives of \p FD that one of its parameters decides, at most
  /// one per parameter (in this TU, or the database's entry).
  llvm::ArrayRef<ParameterControl>
  parameterControls(const clang::FunctionDecl &FD);
  /// The parameters of \p FD it wraps as replicas without verifying them
  /// (UnverifiedReplicas.cpp; in this TU, or the database's entry).
  llvm::ArrayRef<ReplicaParameter>
  replicaParameters(const clang::FunctionDecl &FD);
  /// The argument of \p Call that \p Control's parameter receives.
  static const clang::Expr *argumentFor(const clang::CallExpr &Call,
                                        const ParameterControl &Control);

private:
  /// The database's fact for \p FD (no body in this TU), if usable.
  std::optional<CollectiveCall> imported(const clang::FunctionDecl &FD);
  std::vector<ParameterControl> importedControls(const clang::FunctionDecl &FD);
  std::vector<ReplicaParameter> importedReplicas(const clang::FunctionDecl &FD);
  std::vector<ParameterControl> computeControls(const clang::FunctionDecl &FD);
  std::vector<ReplicaParameter> computeReplicas(const clang::FunctionDecl &FD);
  /// Per function: what a parameter leads to (held by pointer: callers keep
  /// ArrayRefs across later insertions).
  template <typename Fact>
  using ParameterFacts = llvm::DenseMap<const clang::FunctionDecl *,
                                        std::unique_ptr<std::vector<Fact>>>;
  /// \p FD's entry of \p Cache, computed once by \p Compute; empty while it
  /// is computed (recursion: nothing more).
  template <typename Fact, typename ComputeFn>
  static llvm::ArrayRef<Fact> memoized(ParameterFacts<Fact> &Cache,
                                       const clang::FunctionDecl &FD,
                                       ComputeFn Compute) {
    auto [It, New] = Cache.try_emplace(FD.getCanonicalDecl(),
                                       std::make_unique<std::vector<Fact>>());
    // Held by pointer: stays put while Compute adds entries.
    std::vector<Fact> &Facts = *It->second;
    if (New)
      Facts = Compute();
    return Facts;
  }
  /// \p Def's CFG and its rank flow, solved, with each parameter standing
  /// for a value of its own; null when it has no body or parameters, is in
  /// a system header, or a limit stops it.
  std::unique_ptr<MarkedRankFlow> markedFlow(const clang::FunctionDecl &Def);
  /// The parameter whose placeholder \p Origin is, if it is one.
  std::optional<unsigned> markedParameter(const clang::Expr *Origin) const;
  void appendKeys(const clang::Stmt *S, std::vector<std::string> &Out);
  const std::vector<std::string> &helperKeys(const clang::FunctionDecl &Def);

  clang::ASTContext &Ctx;
  const ApiIndex &Index;
  const AnalysisLimits Limits;
  std::unique_ptr<RankDependenceTU> Facts;
  llvm::DenseMap<const clang::FunctionDecl *, std::optional<CollectiveCall>>
      Performs;
  SummaryLookup *Database = nullptr;
  /// The places imported facts point to (CollectiveCall::InnerElsewhere).
  std::vector<std::unique_ptr<ExternalSite>> ExternalSites;
  ParameterFacts<ParameterControl> Controls;
  ParameterFacts<ReplicaParameter> Replicas;
  llvm::DenseMap<const clang::FunctionDecl *, std::vector<std::string>>
      HelperKeys;
  /// Placeholders standing for a parameter's value (RankFlow), and whose.
  llvm::DenseMap<const clang::Expr *, unsigned> ParameterMarks;
};

/// Analyses one function.
DivergenceScan findDivergentCollectives(const clang::FunctionDecl &FD,
                                        DivergenceMemo &Memo,
                                        const ApiIndex &Index,
                                        const AnalysisLimits &Limits);

/// Whether \p Call communicates: a collective of the model; from_local
/// only with run_check set.
bool isCollectiveCall(const clang::CallExpr &Call, const ApiIndex &Index,
                      clang::ASTContext &Ctx);

} // namespace analysis
} // namespace meshguard

#endif // MESHGUARD_ANALYSIS_DIVERGENTCOLLECTIVES_H
