//===--- PlacementFacts.cpp - What a tensor's placements may be -----------===//
//
// The lattice's join, and reading placement lists as the source spells
// them (`{Shard{0}, Replicate{}}`).
//
//===----------------------------------------------------------------------===//

#include "Placements/PlacementFacts.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include <algorithm>

using namespace clang;

namespace meshguard {
namespace analysis {

void PlacementState::join(const PlacementState &O) {
  if (O.What != What) {
    // A partial local value wins; a shard's local value and a DTensor keep
    // the first (both are uses of nothing by themselves).
    if (O.isPartialLocal())
      *this = O;
    return;
  }
  ShardDims |= O.ShardDims;
  MayPartial |= O.MayPartial;
  if (!PartialOrigin)
    PartialOrigin = O.PartialOrigin;
  if (!PlacedAt)
    PlacedAt = O.PlacedAt;
  if (MeshDims != O.MeshDims)
    MeshDims = 0;
  if (MeshMadeBy != O.MeshMadeBy)
    MeshMadeBy = nullptr;
  if (!MeshAt)
    MeshAt = O.MeshAt;
  if (!ToLocal)
    ToLocal = O.ToLocal;
  if (!Param)
    Param = O.Param;
  LocalOfParam |= O.LocalOfParam;
  Then = std::max(Then, O.Then);
  FromShard &= O.FromShard; // a Partial's share on some path: say so
}

const Expr *stripCopies(const Expr *E) {
  while (E) {
    E = E->IgnoreParenImpCasts();
    if (const auto *M = dyn_cast<MaterializeTemporaryExpr>(E))
      E = M->getSubExpr();
    else if (const auto *B = dyn_cast<CXXBindTemporaryExpr>(E))
      E = B->getSubExpr();
    else if (const auto *W = dyn_cast<ExprWithCleanups>(E))
      E = W->getSubExpr();
    else if (const auto *F = dyn_cast<CXXFunctionalCastExpr>(E))
      E = F->getSubExpr();
    else if (const auto *C = dyn_cast<CXXConstructExpr>(E);
             C && C->getNumArgs() == 1 &&
             C->getConstructor()->isCopyOrMoveConstructor())
      E = C->getArg(0);
    else
      break;
  }
  return E;
}

const VarDecl *namedVariable(const Expr *E) {
  if (const auto *D = dyn_cast_or_null<DeclRefExpr>(stripCopies(E)))
    return dyn_cast<VarDecl>(D->getDecl());
  return nullptr;
}

std::optional<PlacementPlace> placeOf(const Expr *E) {
  E = stripCopies(E);
  if (const VarDecl *V = namedVariable(E))
    return PlacementPlace{V, nullptr};
  const auto *M = dyn_cast_or_null<MemberExpr>(E);
  const auto *Field = M ? dyn_cast<FieldDecl>(M->getMemberDecl()) : nullptr;
  const auto *Base =
      M ? dyn_cast<DeclRefExpr>(M->getBase()->IgnoreParenImpCasts()) : nullptr;
  const auto *V = Base ? dyn_cast<VarDecl>(Base->getDecl()) : nullptr;
  if (!Field || !V)
    return std::nullopt;
  return PlacementPlace{V, Field};
}

// The runtime's placement types (include/meshguard/runtime/Placement.h).
enum class PlacementType { None, Shard, Replicate, Partial };

static PlacementType placementType(QualType T) {
  const auto *RD = T.getNonReferenceType()->getAsCXXRecordDecl();
  if (!RD || !RD->getIdentifier())
    return PlacementType::None;
  std::string Name = RD->getQualifiedNameAsString();
  if (Name == "meshguard::Shard")
    return PlacementType::Shard;
  if (Name == "meshguard::Replicate")
    return PlacementType::Replicate;
  if (Name == "meshguard::Partial")
    return PlacementType::Partial;
  return PlacementType::None;
}

const InitListExpr *bracedList(const Expr *Arg) {
  return dyn_cast_or_null<InitListExpr>(findSubExpr(Arg, [](const Expr *E) {
    return isa<InitListExpr>(E) &&
           !cast<InitListExpr>(E)->getType()->isRecordType();
  }));
}

PlacementState readPlacements(const Expr *Arg, ASTContext &Ctx) {
  PlacementState S;
  const InitListExpr *List = bracedList(Arg);
  if (!List)
    return S; // not spelled here: unknown, never Partial or sharded
  S.MeshDims = List->getNumInits() < 8 ? List->getNumInits() : 0;
  for (const Expr *Element : List->inits()) {
    const Expr *Typed = findSubExpr(Element, [](const Expr *E) {
      return placementType(E->getType()) != PlacementType::None;
    });
    switch (Typed ? placementType(Typed->getType()) : PlacementType::None) {
    case PlacementType::Shard: {
      const Expr *Dim = findSubExpr(Typed, [&](const Expr *E) {
        return E->getType()->isIntegerType() && !E->isValueDependent() &&
               E->getIntegerConstantExpr(Ctx);
      });
      std::optional<llvm::APSInt> D =
          Dim ? Dim->getIntegerConstantExpr(Ctx) : std::nullopt;
      S.ShardDims |= D && *D >= 0 && *D < 7
                         ? std::uint8_t(1u << D->getExtValue())
                         : PlacementState::UnknownDim;
      break;
    }
    case PlacementType::Partial:
      S.MayPartial = true;
      break;
    case PlacementType::Replicate:
    case PlacementType::None:
      break;
    }
  }
  return S;
}

bool spellsOnlyReplicate(const Expr *Arg) {
  const InitListExpr *List = bracedList(Arg);
  return List && List->getNumInits() > 0 &&
         llvm::all_of(List->inits(), [](const Expr *Element) {
           const Expr *Typed = findSubExpr(Element, [](const Expr *E) {
             return placementType(E->getType()) != PlacementType::None;
           });
           return Typed &&
                  placementType(Typed->getType()) == PlacementType::Replicate;
         });
}

} // namespace analysis
} // namespace meshguard
