//===--- MeshFacts.cpp - Which mesh a DTensor lives on --------------------===//
//
// A DTensor's mesh is known when it comes from an init_device_mesh call
// (through variables and copies); two meshes surely differ when their
// literal shapes or device types do, or when placements were spelled for
// different numbers of mesh dims.
//
//===----------------------------------------------------------------------===//

#include "Placements/PlacementFacts.h"
#include "clang/AST/ASTContext.h"

using namespace clang;

namespace meshguard {
namespace analysis {

const CallExpr *meshMadeBy(const Expr *Mesh, const ApiIndex &Index) {
  for (unsigned Depth = 0; Mesh && Depth < 4; ++Depth) {
    Mesh = stripCopies(Mesh);
    if (const auto *Call = dyn_cast<CallExpr>(Mesh)) {
      const PlacementCallEntry *P =
          Index.placementCall(Call->getDirectCallee());
      return P && P->Role == PlacementRole::MakesMesh ? Call : nullptr;
    }
    const VarDecl *V = namedVariable(Mesh);
    Mesh = V ? V->getInit() : nullptr;
  }
  return nullptr;
}

/// The argument of a MakesMesh call that holds the mesh's shape.
static const Expr *shapeArg(const CallExpr &Made, const ApiIndex &Index) {
  const PlacementCallEntry *P = Index.placementCall(Made.getDirectCallee());
  return P && P->PlacementsArg >= 0 &&
                 unsigned(P->PlacementsArg) < Made.getNumArgs()
             ? Made.getArg(P->PlacementsArg)
             : nullptr;
}

/// A literal mesh shape ({2, 2}), or none.
static std::optional<std::vector<std::int64_t>>
literalShape(const CallExpr &Made, const ApiIndex &Index, ASTContext &Ctx) {
  const InitListExpr *List = bracedList(shapeArg(Made, Index));
  if (!List)
    return std::nullopt;
  std::vector<std::int64_t> Shape;
  for (const Expr *Element : List->inits()) {
    std::optional<llvm::APSInt> D = Element->getIntegerConstantExpr(Ctx);
    if (!D)
      return std::nullopt;
    Shape.push_back(D->getExtValue());
  }
  return Shape;
}

/// The device type string literal of a MakesMesh call ("cpu"), or empty.
static StringRef literalDeviceType(const CallExpr &Made) {
  const auto *S =
      Made.getNumArgs()
          ? dyn_cast_or_null<StringLiteral>(findSubExpr(
                Made.getArg(0),
                [](const Expr *E) { return isa<StringLiteral>(E); }))
          : nullptr;
  return S ? S->getString() : StringRef();
}

unsigned literalMeshDims(const CallExpr *Made, const ApiIndex &Index,
                         ASTContext &Ctx) {
  std::optional<std::vector<std::int64_t>> Shape =
      Made ? literalShape(*Made, Index, Ctx) : std::nullopt;
  return Shape ? Shape->size() : 0;
}

bool surelyDifferentMeshes(const PlacementState &A, const PlacementState &B,
                           const ApiIndex &Index, ASTContext &Ctx) {
  if (!A.isDTensor() || !B.isDTensor())
    return false;
  if (A.MeshDims && B.MeshDims && A.MeshDims != B.MeshDims)
    return true;
  if (!A.MeshMadeBy || !B.MeshMadeBy || A.MeshMadeBy == B.MeshMadeBy)
    return false;
  StringRef DA = literalDeviceType(*A.MeshMadeBy),
            DB = literalDeviceType(*B.MeshMadeBy);
  if (!DA.empty() && !DB.empty() && DA != DB)
    return true;
  std::optional<std::vector<std::int64_t>> SA =
      literalShape(*A.MeshMadeBy, Index, Ctx);
  std::optional<std::vector<std::int64_t>> SB =
      literalShape(*B.MeshMadeBy, Index, Ctx);
  return SA && SB && *SA != *SB;
}

std::string describeMesh(const PlacementState &S, const ApiIndex &Index,
                         ASTContext &Ctx) {
  if (S.MeshMadeBy)
    if (std::optional<std::vector<std::int64_t>> Shape =
            literalShape(*S.MeshMadeBy, Index, Ctx)) {
      std::string Text = "mesh [";
      for (size_t I = 0; I < Shape->size(); ++I)
        Text += (I ? ", " : "") + std::to_string((*Shape)[I]);
      return Text + "]";
    }
  if (S.MeshDims)
    return "a " + std::to_string(S.MeshDims) + "-D mesh";
  return "another mesh";
}

} // namespace analysis
} // namespace meshguard
