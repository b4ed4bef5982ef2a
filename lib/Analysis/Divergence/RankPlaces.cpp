//===--- RankPlaces.cpp - Where a rank fact lives, and where it comes from
//-===//
//
// RankPlace: a local variable, one of its fields or one constant-index
// element; the origin of an expression's rank-dependent value, read from
// the places it names and the file-wide summary.
//
//===----------------------------------------------------------------------===//

#include "Divergence/MeshGroups.h"
#include "Divergence/RankDependence.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"

using namespace clang;

namespace meshguard {
namespace analysis {

/// The aggregate initialisation \p E is (`DistInfo{rank, world}`, `{r, w}`),
/// if any: its fields carry their own facts.
const InitListExpr *recordInitList(const Expr *E) {
  while (E) {
    E = E->IgnoreImplicit()->IgnoreParens();
    if (const auto *Cast = dyn_cast<CXXFunctionalCastExpr>(E))
      E = Cast->getSubExpr();
    else if (const auto *Cleanups = dyn_cast<ExprWithCleanups>(E))
      E = Cleanups->getSubExpr();
    else
      break;
  }
  const auto *ILE = dyn_cast_or_null<InitListExpr>(E);
  if (!ILE || !ILE->getType()->isRecordType() || ILE->getType()->isUnionType())
    return nullptr;
  // Bases come first in a C++17 aggregate's initialisers: not told apart.
  if (const CXXRecordDecl *RD = ILE->getType()->getAsCXXRecordDecl();
      RD && RD->getNumBases() > 0)
    return nullptr;
  return ILE;
}

/// `v[i]` on an array or through operator[]: base and index.
static bool asSubscript(const Expr *E, const Expr *&Base, const Expr *&Idx) {
  if (const auto *AS = dyn_cast<ArraySubscriptExpr>(E)) {
    Base = AS->getBase();
    Idx = AS->getIdx();
    return true;
  }
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E);
      Op && Op->getOperator() == OO_Subscript && Op->getNumArgs() == 2) {
    Base = Op->getArg(0);
    Idx = Op->getArg(1);
    return true;
  }
  return false;
}

std::optional<RankPlace>
RankDependenceTU::localPlace(const Expr *E, const FunctionDecl *Fn,
                             const Expr *&Index) const {
  Index = nullptr;
  RankPlace P;
  for (const Expr *Cur = E; Cur;) {
    Cur = Cur->IgnoreParenImpCasts();
    if (const auto *DRE = dyn_cast<DeclRefExpr>(Cur)) {
      P.Var = dyn_cast<VarDecl>(DRE->getDecl());
      if (!P.Var || !isLocalOf(P.Var, Fn))
        return std::nullopt;
      return P;
    }
    const Expr *Base = nullptr, *Idx = nullptr;
    if (const auto *ME = dyn_cast<MemberExpr>(Cur);
        ME && !ME->isArrow() && isa<FieldDecl>(ME->getMemberDecl())) {
      P.Field = ME->getMemberDecl();
      P.Element = -1;
      Cur = ME->getBase();
    } else if (asSubscript(Cur, Base, Idx)) {
      // Through a pointer, the element is not the variable's own.
      if (Base->IgnoreParenImpCasts()->getType()->isPointerType())
        return std::nullopt;
      P.Field = nullptr;
      P.Element = -1;
      if (std::optional<llvm::APSInt> K = Idx->getIntegerConstantExpr(Ctx);
          K && K->isNonNegative())
        P.Element = K->getExtValue();
      else if (!Index)
        Index = Idx;
      Cur = Base;
    } else {
      return std::nullopt;
    }
  }
  return std::nullopt;
}

/// Forgets everything known about \p V and its parts.
void forget(RankVars &Vars, const VarDecl *V) {
  llvm::SmallVector<RankPlace, 4> Parts;
  for (const auto &KV : Vars)
    if (KV.first.Var == V)
      Parts.push_back(KV.first);
  for (const RankPlace &P : Parts)
    Vars.erase(P);
}

const Expr *RankDependenceTU::placeOrigin(const RankPlace &P, const Expr *Index,
                                          const RankVars &Locals,
                                          const FunctionDecl *Fn) const {
  if (Index)
    if (const Expr *O = origin(Index, Locals, Fn))
      return O; // a[rank]
  if (Summarising) {
    // Flow-insensitive: a local's parts are not told apart.
    if (P.Field)
      if (const Expr *O = Summary.lookup(P.Field))
        return O;
    return Summary.lookup(P.Var);
  }
  if (const Expr *O = Locals.lookup(P))
    return O;
  if (!P.isWhole() && !Index)
    return Locals.lookup(RankPlace{P.Var});
  // The whole variable, or an element the index does not name: any part.
  for (const auto &[Place, O] : Locals)
    if (Place.Var == P.Var &&
        (!P.Field || Place.Field == P.Field || Place.isWhole()))
      return O;
  return nullptr;
}

const Expr *RankDependenceTU::origin(const Expr *E, const RankVars &Locals,
                                     const FunctionDecl *Fn) const {
  if (!E || isa<LambdaExpr>(E) || isa<UnaryExprOrTypeTraitExpr>(E))
    return nullptr;
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    if (const Expr *S = sourceCall(*Call))
      return S;
    if (isMembershipCall(*Call))
      return Call;
  }
  // Control, not data: what is the same on every rank whatever it was
  // built from; an aggregate's fields carry their own facts, and so do
  // those of an object of the file's own class built by its constructor.
  if (isUniformObject(E) || recordInitList(E) || summarisedConstruction(E))
    return nullptr;
  if (const auto *ME = dyn_cast<MemberExpr>(E))
    if (const Expr *O = Summary.lookup(ME->getMemberDecl()))
      return O;
  const Expr *Base = nullptr, *Idx = nullptr;
  if (isa<DeclRefExpr, MemberExpr>(E) || asSubscript(E, Base, Idx)) {
    const Expr *Index = nullptr;
    if (std::optional<RankPlace> P = localPlace(E, Fn, Index))
      return placeOrigin(*P, Index, Locals, Fn);
  }
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
    const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
    return V ? Summary.lookup(V) : nullptr;
  }
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    if (const Expr *S = sourceCall(*Call))
      return S;
    if (const FunctionDecl *Callee = Call->getDirectCallee()) {
      // What all-reduce, broadcast or full_tensor return is the same on
      // every rank (not what redistribute or from_local return: shards).
      if (Index.makesUniform(Callee))
        return nullptr;
      if (Summary.lookup(Callee->getCanonicalDecl()))
        return Call;
    }
  }
  // The first operand's origin names the value, but a mesh coordinate
  // (which MeshGroups.h may exempt) only when nothing else is mixed in: a
  // rank besides it names the value, two coordinates make `E` the origin.
  const Expr *Coordinate = nullptr;
  for (const Stmt *Child : E->children())
    if (const auto *CE = dyn_cast_or_null<Expr>(Child))
      if (const Expr *O = origin(CE, Locals, Fn)) {
        if (!isCoordinateCall(O))
          return O;
        if (Coordinate && O != Coordinate)
          return E;
        Coordinate = O;
      }
  return Coordinate;
}

} // namespace analysis
} // namespace meshguard
