//===--- MixedMeshesCheck.cpp - dtensor-mixed-meshes ----------------------===//

#include "MixedMeshesCheck.h"
#include "CalleeNotes.h"
#include "DiagnosticMessages.h"
#include "DiagnosticText.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"

using namespace clang;
using namespace meshguard::analysis;

namespace meshguard {
namespace tidy {

void MixedMeshesCheck::analyse(const FunctionDecl &FD, ASTContext &Ctx) {
  const PlacementScan &Scan = engine(Ctx).placements(FD);
  if (!finished(FD, Scan.Result, "DTensors of different meshes"))
    return;
  for (const MixedMeshSite &Site : Scan.MixedMeshes)
    report(Site, Ctx);
}

void MixedMeshesCheck::report(const MixedMeshSite &Site, ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  SourceLocation Loc = SM.getExpansionLoc(isa<CXXOperatorCallExpr>(Site.Call)
                                              ? Site.Call->getExprLoc()
                                              : Site.Call->getBeginLoc());
  if (!firstReportAt(Loc))
    return;
  diag(Loc, msg::MixedMeshes)
      << (Site.Module   ? 2
          : Site.InList ? 1
                        : 0)
      << Site.Name << quotedText(*Site.First, Ctx) << Site.FirstMesh
      << quotedText(*Site.Second, Ctx) << Site.SecondMesh;
  auto Note = [&](const NotePlace &At, const Expr &Operand,
                  const std::string &Mesh) {
    if (At)
      noteInCallee(*this, At.Here, At.Elsewhere, *Site.Call,
                   msg::MixedMeshesPlacedNote, Ctx)
          << quotedText(Operand, Ctx) << Mesh;
  };
  Note(Site.FirstAt, *Site.First, Site.FirstMesh);
  Note(Site.SecondAt, *Site.Second, Site.SecondMesh);
}

} // namespace tidy
} // namespace meshguard
