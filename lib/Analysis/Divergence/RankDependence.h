//===--- RankDependence.h - Values that differ per rank ---------*- C++ -*-===//
//
// A value is rank-dependent when it comes from a rank or coordinate accessor
// (mesh.get_rank(), pg->getRank()), from getenv("RANK") / LOCAL_RANK, or is
// computed from such a value. The result of a collective that makes its
// tensors agree (all-reduce, broadcast, all-gather) is uniform again.
//
// Two layers: a flow-insensitive TU summary (fields, parameters given a
// rank-dependent argument somewhere, helpers returning one, and captured or
// global variables) and, per function, a flow-sensitive gen/kill analysis of
// its local variables over the CFG (an all-reduce makes a metric uniform
// again only after it ran). A single bit per variable needs no value model
// or SAT solver, so this is a plain may-analysis rather than a FlowSensitive
// model: cheaper, and sound for "may differ per rank" (joins are unions).
//
//===----------------------------------------------------------------------===//

#ifndef MESHGUARD_LIB_ANALYSIS_RANKDEPENDENCE_H
#define MESHGUARD_LIB_ANALYSIS_RANKDEPENDENCE_H

#include "meshguard/Analysis/Api/ApiIndex.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/Analysis/CFG.h"
#include "llvm/ADT/DenseMap.h"
#include <optional>

namespace meshguard {
namespace analysis {

/// What a local rank fact is about: a variable, or one field or one
/// constant-index element of it (`ctx.mype` and `ctx.nproc`, `a[1]` and
/// `a[0]` are told apart: PARCOACH's field- and index-sensitive cases).
struct RankPlace {
  const clang::VarDecl *Var = nullptr;
  /// The member of Var written or read (the one next to Var for `v.a.b`).
  const clang::ValueDecl *Field = nullptr;
  /// A constant index into Var, or -1.
  int64_t Element = -1;

  bool isWhole() const { return !Field && Element < 0; }
  bool operator==(const RankPlace &O) const {
    return Var == O.Var && Field == O.Field && Element == O.Element;
  }
};

} // namespace analysis
} // namespace meshguard

namespace llvm {
template <> struct DenseMapInfo<meshguard::analysis::RankPlace> {
  using Place = meshguard::analysis::RankPlace;
  static Place getEmptyKey() {
    return {DenseMapInfo<const clang::VarDecl *>::getEmptyKey(), nullptr, -1};
  }
  static Place getTombstoneKey() {
    return {DenseMapInfo<const clang::VarDecl *>::getTombstoneKey(), nullptr,
            -1};
  }
  static unsigned getHashValue(const Place &P) {
    return detail::combineHashValue(
        DenseMapInfo<const void *>::getHashValue(P.Var),
        detail::combineHashValue(
            DenseMapInfo<const void *>::getHashValue(P.Field),
            DenseMapInfo<int64_t>::getHashValue(P.Element)));
  }
  static bool isEqual(const Place &A, const Place &B) { return A == B; }
};
} // namespace llvm

namespace meshguard {
namespace analysis {

/// The condition deciding whether the children of \p S run (`if`, `?:`,
/// `switch`, and the loops but a range `for`), or null.
const clang::Expr *conditionOf(const clang::Stmt *S);

/// Rank-dependent places and where their value comes from.
using RankVars = llvm::DenseMap<RankPlace, const clang::Expr *>;

class RankDependenceTU {
public:
  RankDependenceTU(clang::ASTContext &Ctx, const ApiIndex &Index);

  /// Where \p E's rank-dependent value comes from, or null when uniform.
  /// Local variables of \p Fn are looked up in \p Locals; everything else
  /// in the TU summary.
  const clang::Expr *origin(const clang::Expr *E, const RankVars &Locals,
                            const clang::FunctionDecl *Fn) const;
  /// Parameters of \p FD that some call of the TU gives a rank-dependent
  /// argument.
  void seedParameters(const clang::FunctionDecl &FD, RankVars &Into) const;
  /// Applies one CFG statement to \p Vars (assignments, uniform-making
  /// collectives, mutating calls with rank-dependent arguments). \p Implicit
  /// is the origin of a rank-dependent condition the statement runs under:
  /// what it assigns is then rank-dependent too.
  void transfer(const clang::Stmt *S, RankVars &Vars,
                const clang::FunctionDecl *Fn,
                const clang::Expr *Implicit = nullptr) const;

private:
  void summarise();
  /// \p Implicit: the origin of a rank-dependent condition \p S runs
  /// under (scalars it assigns are rank-dependent then).
  void scan(const clang::Stmt *S, const clang::FunctionDecl *Fn, bool &Changed,
            const clang::Expr *Implicit = nullptr);
  /// Calls \p Visit(argument, origin) for each argument of \p Call that the
  /// callee writes a rank-dependent value through (an out-parameter).
  template <typename Fn>
  void forEachOutArgument(const clang::CallExpr &Call, Fn &&Visit) const;
  bool mark(llvm::DenseMap<const void *, const clang::Expr *> &M,
            const void *Key, const clang::Expr *Origin);
  const clang::Expr *sourceCall(const clang::CallExpr &Call) const;
  /// The local place \p E reads or writes (`v`, `v.f`, `v[2]`), if \p E
  /// is one; \p Index is set to a non-constant index expression.
  std::optional<RankPlace> localPlace(const clang::Expr *E,
                                      const clang::FunctionDecl *Fn,
                                      const clang::Expr *&Index) const;
  /// Where a read of the local place \p P gets a rank-dependent value.
  const clang::Expr *placeOrigin(const RankPlace &P, const clang::Expr *Index,
                                 const RankVars &Locals,
                                 const clang::FunctionDecl *Fn) const;
  bool isLocalOf(const clang::VarDecl *V, const clang::FunctionDecl *Fn) const;
  /// A construction by a constructor of the main file, whose parameters and
  /// the fields it sets the summary follows.
  bool summarisedConstruction(const clang::Expr *E) const;

  clang::ASTContext &Ctx;
  const ApiIndex &Index;
  /// VarDecls (captured, global, parameters), FieldDecls and FunctionDecls
  /// (their results): rank-dependent somewhere in the TU.
  llvm::DenseMap<const void *, const clang::Expr *> Summary;
  /// Pointer and reference parameters a function writes a rank-dependent
  /// value through (`*out = rank`).
  llvm::DenseMap<const void *, const clang::Expr *> OutParams;
  /// While summarising, locals are looked up flow-insensitively too.
  bool Summarising = false;
};

/// RankObjects.cpp: a call that gives non-members a null group
/// (`pg->splitGroup(ranks)`).
bool isMembershipCall(const clang::CallExpr &Call);
/// A tensor type (at::Tensor, through references and smart pointers).
bool isTensorClass(clang::QualType T);
/// A value that is the same on every rank whatever its arguments.
bool isUniformObject(const clang::Expr *E);

/// RankPlaces.cpp: the aggregate initialisation \p E is, if any.
const clang::InitListExpr *recordInitList(const clang::Expr *E);
/// Forgets everything known about \p V and its parts.
void forget(RankVars &Vars, const clang::VarDecl *V);

} // namespace analysis
} // namespace meshguard

#endif // MESHGUARD_LIB_ANALYSIS_RANKDEPENDENCE_H
