//===--- PartialLocalUseCheck.cpp - dtensor-partial-local-use -------------===//

#include "PartialLocalUseCheck.h"
#include "CalleeNotes.h"
#include "DiagnosticMessages.h"
#include "Fixes/FindingFix.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"

using namespace clang;
using namespace meshguard::analysis;

namespace meshguard {
namespace tidy {

void PartialLocalUseCheck::onEndOfTranslationUnit() {
  FixedToLocal.clear();
  DTensorCheckBase::onEndOfTranslationUnit();
}

void PartialLocalUseCheck::analyse(const FunctionDecl &FD, ASTContext &Ctx) {
  const PlacementScan &Scan = engine(Ctx).placements(FD);
  if (!finished(FD, Scan.Result, "uses of Partial values' local tensors"))
    return;
  for (const PartialLocalUse &U : Scan.PartialUses)
    report(U, Ctx);
}

/// full_tensor() in place of to_local(): the same tensor argument, the
/// reduced value. Not for the overload with grad_placements.
static std::optional<FixItHint> fullTensorFix(const CallExpr &ToLocal,
                                              ASTContext &Ctx) {
  unsigned Explicit = 0;
  for (const Expr *Arg : ToLocal.arguments())
    Explicit += !isa<CXXDefaultArgExpr>(Arg);
  const auto *Ref =
      dyn_cast<DeclRefExpr>(ToLocal.getCallee()->IgnoreImpCasts());
  SourceLocation Name = Ref ? Ref->getNameInfo().getLoc() : SourceLocation();
  // A helper that wraps to_local() is left as it is: its code is right
  // for a shard.
  if (Explicit != 1 || Name.isInvalid() || Name.isMacroID() ||
      !Ref->getDecl()->getIdentifier() ||
      Ref->getDecl()->getName() != "to_local")
    return std::nullopt;
  return FixItHint::CreateReplacement(
      CharSourceRange::getTokenRange(Name, Name), "full_tensor");
}

void PartialLocalUseCheck::report(const PartialLocalUse &U, ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  SourceLocation Loc = SM.getExpansionLoc(U.Use->getBeginLoc());
  if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(U.Use))
    Loc = SM.getExpansionLoc(OC->getOperatorLoc());
  if (!firstReportAt(Loc))
    return;
  // One fix per to_local(), on its first use (the same edit twice would be
  // dropped as overlapping). Only a to_local() of this file can be edited.
  FindingFix Fix;
  if (const auto *ToLocal = dyn_cast_or_null<CallExpr>(U.ToLocal.Here))
    if (FixedToLocal.insert(ToLocal).second)
      if (std::optional<FixItHint> Hint = fullTensorFix(*ToLocal, Ctx)) {
        Fix.add(*Hint);
        Fix.Title = U.OfShard ? "read the whole tensor: full_tensor() instead "
                                "of to_local()"
                              : "read the reduced value: full_tensor() "
                                "instead of to_local()";
      }
  FindingReporter Findings(*this, areDiagsSelfContained());
  Findings.warning(Loc, msg::PartialLocalUsed, Fix)
      << static_cast<int>(U.Kind) << U.What;
  auto Note = [&](const NotePlace &At, StringRef Message) {
    return noteInCallee(*this, At.Here, At.Elsewhere, *U.Use, Message, Ctx);
  };
  if (U.InnerUse.Here)
    Note(U.InnerUse, msg::PartialLocalUsedInHelper) << U.What;
  else if (U.InnerUse)
    Note(U.InnerUse, msg::PartialLocalUsedInCallee);
  Note(U.ToLocal,
       U.OfShard ? msg::ShardLocalTakenHere : msg::PartialLocalTakenHere);
  if (U.PartialOrigin)
    Note(U.PartialOrigin,
         U.OfShard ? msg::ShardReducedNote : msg::PartialOriginNote);
  Findings.fixNote(Loc, Fix);
}

} // namespace tidy
} // namespace meshguard
