//===--- MeshGroups.h - Coordinates and groups of a device mesh -*- C++ -*-===//
//
// On a 2-D mesh, every member of a group along one mesh dim has the same
// coordinate along the other dims: a condition on that coordinate decides
// alike for the whole group. These helpers recognise the coordinate
// (`M.coordinate()[k]`, `M.get_local_rank(k)`) and the group
// (`M.get_group(d)`, also through a local reference holding it).
//
//===----------------------------------------------------------------------===//

#ifndef MESHGUARD_LIB_ANALYSIS_MESHGROUPS_H
#define MESHGUARD_LIB_ANALYSIS_MESHGROUPS_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include <optional>
#include <utility>

namespace clang {
class CFGBlock;
} // namespace clang

namespace meshguard {
namespace analysis {

/// A mesh variable and one of its dims.
using MeshDim = std::pair<const clang::ValueDecl *, int64_t>;

/// `M.coordinate()` or `M.get_local_rank(d)`: a rank's place along one mesh
/// dim (any mesh, any dim).
bool isCoordinateCall(const clang::Expr *E);

/// The rank-dependent value \p Origin as a coordinate along one dim of a
/// mesh variable, if it is one.
std::optional<MeshDim> meshCoordinate(const clang::Expr *Origin,
                                      clang::ASTContext &Ctx);

/// The mesh dim whose group the raw collective \p Call runs on
/// (`M.get_group(d)->allreduce(...)`), if it is one.
std::optional<MeshDim> collectiveGroup(const clang::CallExpr &Call,
                                       clang::ASTContext &Ctx);

/// Whether a condition whose rank-dependent value is \p Origin decides
/// alike for every member of the group \p Call runs on.
bool sameForEveryMember(const clang::Expr *Origin, const clang::CallExpr &Call,
                        clang::ASTContext &Ctx);

class RankFlow;

/// Subgroup membership (SubgroupMembers.cpp): whether the branch ending
/// \p Dep lets exactly the members of the subgroup \p Call runs on reach
/// it (it tests the group handle, the membership of the ranks list the
/// group was built for, or only its members build the group).
bool membersTogether(clang::CFGBlock *Dep, const clang::CallExpr &Call,
                     const clang::FunctionDecl &FD, RankFlow &Flow);

} // namespace analysis
} // namespace meshguard

#endif // MESHGUARD_LIB_ANALYSIS_MESHGROUPS_H
