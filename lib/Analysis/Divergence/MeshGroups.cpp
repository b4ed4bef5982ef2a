//===--- MeshGroups.cpp - Coordinates and groups of a device mesh --------===//

#include "Divergence/MeshGroups.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"

using namespace clang;

namespace meshguard {
namespace analysis {

static const DeclRefExpr *meshVariable(const Expr *E) {
  if (!E)
    return nullptr;
  return dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
}

static std::optional<int64_t> constantArg(const CallExpr &Call, unsigned I,
                                          ASTContext &Ctx) {
  if (I >= Call.getNumArgs())
    return std::nullopt;
  if (std::optional<llvm::APSInt> K =
          Call.getArg(I)->getIntegerConstantExpr(Ctx))
    return K->getExtValue();
  return std::nullopt;
}

/// The subscript applying to \p E (`E[k]`), skipping implicit nodes.
static const CXXOperatorCallExpr *subscriptOf(const Expr &E, ASTContext &Ctx) {
  DynTypedNodeList Parents = Ctx.getParents(E);
  while (Parents.size() == 1) {
    const auto *P = Parents[0].get<Expr>();
    if (!P)
      return nullptr;
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(P))
      return Op->getOperator() == OO_Subscript ? Op : nullptr;
    if (!isa<ImplicitCastExpr, MaterializeTemporaryExpr, ParenExpr>(P))
      return nullptr;
    Parents = Ctx.getParents(*P);
  }
  return nullptr;
}

/// The rank-dependent value \p Origin as a coordinate along one dim of a
/// mesh variable: `M.coordinate()[k]` (also through a variable holding it)
/// or `M.get_local_rank(k)`.
bool isCoordinateCall(const Expr *E) {
  const auto *MC = dyn_cast_or_null<CXXMemberCallExpr>(E);
  const CXXMethodDecl *MD = MC ? MC->getMethodDecl() : nullptr;
  return MD && MD->getDeclName().isIdentifier() &&
         (MD->getName() == "coordinate" || MD->getName() == "get_local_rank");
}

std::optional<MeshDim> meshCoordinate(const Expr *Origin, ASTContext &Ctx) {
  if (!isCoordinateCall(Origin))
    return std::nullopt;
  const auto *MC = cast<CXXMemberCallExpr>(Origin);
  StringRef Name = MC->getMethodDecl()->getName();
  std::optional<int64_t> Dim;
  if (Name == "get_local_rank")
    Dim = constantArg(*MC, 0, Ctx);
  else if (Name == "coordinate")
    if (const CXXOperatorCallExpr *Sub = subscriptOf(*MC, Ctx))
      Dim = constantArg(*Sub, 1, Ctx);
  const DeclRefExpr *Mesh = meshVariable(MC->getImplicitObjectArgument());
  if (!Mesh || !Dim)
    return std::nullopt;
  return std::make_pair(Mesh->getDecl(), *Dim);
}

/// A local reference or const variable that names what it was initialised
/// with (`const auto &dp = mesh.get_group(0);`).
static const VarDecl *boundGroup(const Expr *E) {
  const auto *DRE = dyn_cast<DeclRefExpr>(E);
  const auto *V = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
  if (!V || !V->isLocalVarDecl() || !V->getInit() ||
      !(V->getType()->isReferenceType() || V->getType().isConstQualified()))
    return nullptr;
  return V;
}

/// `M.get_group(d)->collective(...)`: the mesh and dim of the group a raw
/// collective runs on.
std::optional<MeshDim> collectiveGroup(const CallExpr &Call, ASTContext &Ctx) {
  const auto *MC = dyn_cast<CXXMemberCallExpr>(&Call);
  if (!MC)
    return std::nullopt;
  const Expr *Object = MC->getImplicitObjectArgument();
  while (Object) {
    Object = Object->IgnoreParenImpCasts();
    if (const auto *Arrow = dyn_cast<CXXOperatorCallExpr>(Object);
        Arrow && Arrow->getNumArgs() >= 1 &&
        (Arrow->getOperator() == OO_Arrow || Arrow->getOperator() == OO_Star))
      Object = Arrow->getArg(0);
    else if (const auto *Deref = dyn_cast<UnaryOperator>(Object);
             Deref && Deref->getOpcode() == UO_Deref)
      Object = Deref->getSubExpr();
    else if (const VarDecl *Held = boundGroup(Object))
      Object = Held->getInit();
    else
      break;
  }
  const auto *Get = dyn_cast_or_null<CXXMemberCallExpr>(Object);
  if (!Get || !Get->getMethodDecl() ||
      Get->getMethodDecl()->getName() != "get_group")
    return std::nullopt;
  const DeclRefExpr *Mesh = meshVariable(Get->getImplicitObjectArgument());
  std::optional<int64_t> Dim = constantArg(*Get, 0, Ctx);
  if (!Mesh || !Dim)
    return std::nullopt;
  return std::make_pair(Mesh->getDecl(), *Dim);
}

/// `dist::all_reduce_(ts, op, 1)`, `guarded::broadcast_(ts, mesh, 0, 1)`:
/// the mesh dim a runtime collective runs along (its `mesh_dim` argument,
/// the default one included) and its `mesh` argument; the mesh is null for
/// the dist:: collectives, which run on their tensors' mesh.
static std::optional<MeshDim> meshDimArgument(const CallExpr &Call,
                                              ASTContext &Ctx) {
  const FunctionDecl *Callee = Call.getDirectCallee();
  if (!Callee || isa<CXXMethodDecl>(Callee))
    return std::nullopt;
  std::optional<int64_t> Dim;
  const ValueDecl *Mesh = nullptr;
  for (unsigned I = 0; I < Callee->getNumParams() && I < Call.getNumArgs();
       ++I) {
    StringRef Name = Callee->getParamDecl(I)->getName();
    if (Name == "mesh_dim")
      Dim = constantArg(Call, I, Ctx);
    else if (Name == "mesh")
      if (const DeclRefExpr *M = meshVariable(Call.getArg(I)))
        Mesh = M->getDecl();
  }
  if (!Dim)
    return std::nullopt;
  return std::make_pair(Mesh, *Dim);
}

/// A rank's coordinate along one mesh dim is the same for every member of
/// a group along another dim: a condition on it decides alike for the whole
/// group that \p Call runs on.
bool sameForEveryMember(const Expr *Origin, const CallExpr &Call,
                        ASTContext &Ctx) {
  std::optional<MeshDim> Coord = meshCoordinate(Origin, Ctx);
  if (!Coord)
    return false;
  if (std::optional<MeshDim> Group = collectiveGroup(Call, Ctx))
    return Coord->first == Group->first && Coord->second != Group->second;
  // A runtime collective along `mesh_dim`: on its mesh argument, or for
  // dist:: on the tensors' mesh, taken to be the coordinate's.
  std::optional<MeshDim> Along = meshDimArgument(Call, Ctx);
  return Along && (!Along->first || Along->first == Coord->first) &&
         Coord->second != Along->second;
}

} // namespace analysis
} // namespace meshguard
