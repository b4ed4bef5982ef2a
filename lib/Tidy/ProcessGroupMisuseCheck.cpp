//===--- ProcessGroupMisuseCheck.cpp - dtensor-process-group-misuse -------===//

#include "ProcessGroupMisuseCheck.h"
#include "CalleeNotes.h"
#include "DiagnosticMessages.h"
#include "DiagnosticText.h"
#include "Fixes/EditableSource.h"
#include "Fixes/FindingFix.h"
#include "Fixes/MeshAwareRewrite.h"
#include "clang/AST/ASTContext.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/STLExtras.h"
#include <optional>

using namespace clang;
using namespace meshguard::analysis;

namespace meshguard {
namespace tidy {

std::vector<StringRef> ProcessGroupMisuseCheck::interestingCallees() const {
  return Index->processGroupCollectiveNames();
}

void ProcessGroupMisuseCheck::analyse(const FunctionDecl &FD, ASTContext &Ctx) {
  const FunctionFacts &Facts = engine(Ctx).facts(FD);
  if (!finished(FD, Facts.Result,
                "DTensors passed to process-group collectives"))
    return;
  // In source order: an element given to several collectives is wrapped by
  // the fix-it of the first one only.
  std::vector<const ProcessGroupSite *> Sites;
  Sites.reserve(Facts.ProcessGroupCalls.size());
  for (const ProcessGroupSite &Site : Facts.ProcessGroupCalls)
    Sites.push_back(&Site);
  const SourceManager &SM = Ctx.getSourceManager();
  llvm::stable_sort(Sites,
                    [&](const ProcessGroupSite *A, const ProcessGroupSite *B) {
                      return SM.isBeforeInTranslationUnit(
                          A->Call->getBeginLoc(), B->Call->getBeginLoc());
                    });
  WrappedAt.clear();
  for (const ProcessGroupSite *Site : Sites)
    if (Site->Inner || Site->InnerElsewhere)
      reportCallThrough(*Site, Ctx);
    else
      report(*Site, FD, Ctx);
}

void ProcessGroupMisuseCheck::reportCallThrough(const ProcessGroupSite &Site,
                                                ASTContext &Ctx) {
  const CallExpr &Call = *Site.Call;
  const OperandFact &First = Site.DTensorOperands.front();
  diag(Call.getBeginLoc(), Site.Surely ? msg::CallGivesProcessGroupDTensor
                                       : msg::CallMayGiveProcessGroupDTensor)
      << calleeName(Call, Ctx) << Site.Entry->OpName
      << operandName(*First.E, Ctx);
  noteInCallee(*this, Site.Inner, Site.InnerElsewhere, Call,
               msg::ProcessGroupCollectiveInCallee, Ctx)
      << givenByCapture(Call, *First.E, Ctx);
}

/// Replaces \p E with `meshguard::to_local(<E>)`, unless it is in a macro or
/// a system header. A replacement of the whole text, not two insertions:
/// another check's insertion inside the element (dtensor-mixed-tensor-op's
/// from_local() around `bias` in `{w + bias}`) then conflicts with it, and
/// clang-tidy drops that other fix whole instead of interleaving the texts
/// into code that does not compile. (Identical replacements from two
/// diagnostics conflict too, and both are dropped: hence only the first
/// collective a container reaches carries the fix-it.)
static std::optional<FixItHint> wrapInToLocal(const Expr &E, ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  SourceRange Range = E.getSourceRange();
  if (!isEditable({Range.getBegin(), Range.getEnd()}, SM))
    return std::nullopt;
  CharSourceRange Tokens = CharSourceRange::getTokenRange(Range);
  bool Invalid = false;
  StringRef Text =
      Lexer::getSourceText(Tokens, SM, Ctx.getLangOpts(), &Invalid);
  if (Invalid || Text.empty())
    return std::nullopt;
  return FixItHint::CreateReplacement(
      Tokens, ("meshguard::to_local(" + Text + ")").str());
}

void ProcessGroupMisuseCheck::report(const ProcessGroupSite &Site,
                                     const FunctionDecl &FD, ASTContext &Ctx) {
  const CallExpr &Call = *Site.Call;
  const OperandFact &First = Site.DTensorOperands.front();
  std::string Name = operandName(*First.E, Ctx);
  llvm::SmallVector<FixItHint, 4> Fixes;
  llvm::SmallVector<const Expr *, 4> Wrapped;
  // Surely-DTensor elements written where no fix-it can go (macros).
  llvm::SmallVector<const Expr *, 2> Unwrappable;
  // Earlier collectives whose fix-its wrap elements given to this one.
  llvm::SmallVector<const CallExpr *, 2> FixedEarlier;
  if (Site.Surely)
    for (const Expr *E : Site.WrapInToLocal) {
      if (const CallExpr *Earlier = WrappedAt.lookup(E)) {
        if (Earlier != &Call && !llvm::is_contained(FixedEarlier, Earlier))
          FixedEarlier.push_back(Earlier);
        continue;
      }
      if (std::optional<FixItHint> Fix = wrapInToLocal(*E, Ctx)) {
        Fixes.push_back(*Fix);
        Wrapped.push_back(E);
      } else {
        Unwrappable.push_back(E);
      }
    }
  // All or nothing: a partial fix would still hand over a DTensor.
  if (!Unwrappable.empty())
    Fixes.clear();
  else
    for (const Expr *E : Wrapped)
      WrappedAt[E] = &Call;
  // A vector of DTensors no to_local() can reach (`ps =
  // model->parameters()`): the mesh-aware collective on it instead.
  const MeshCollectiveEntry *MeshAware = nullptr;
  for (const MeshCollectiveEntry &Mesh : Index->model().MeshCollectives)
    if (Mesh.OpName == Site.Entry->OpName) {
      MeshAware = &Mesh;
      break;
    }
  FindingFix Fix;
  for (const FixItHint &Hint : Fixes)
    Fix.add(Hint);
  if (Wrapped.size() == 1)
    Fix.Title =
        "pass meshguard::to_local(...) of " + quotedText(*Wrapped.front(), Ctx);
  else if (!Wrapped.empty())
    Fix.Title = "pass meshguard::to_local(...) of each DTensor";
  if (Site.Surely && Site.WrapInToLocal.empty() &&
      Site.MaybeDTensorElements.empty() && FixedEarlier.empty() && MeshAware &&
      llvm::all_of(Site.DTensorOperands, [](const OperandFact &Op) {
        return Op.IsContainer && Op.P == Provenance::DTensor;
      }))
    if (std::optional<FixItHint> Rewrite =
            meshAwareRewrite(Call, FD, MeshAware->Function, Ctx)) {
      Fix.add(*Rewrite);
      Fix.Title =
          "call the mesh-aware collective '" + MeshAware->Function + "'";
    }
  FindingReporter Findings(*this, areDiagsSelfContained());
  Findings.warning(Call.getBeginLoc(),
                   Site.Surely ? msg::DTensorToProcessGroup
                               : msg::MaybeDTensorToProcessGroup,
                   Fix)
      << Site.Entry->OpName << Name;
  for (const OperandFact &Op : Site.DTensorOperands) {
    if (Op.IsContainer) {
      diag(Op.E->getBeginLoc(), msg::HoldsDTensor, DiagnosticIDs::Note)
          << operandName(*Op.E, Ctx) << Site.Surely;
      continue;
    }
    if (Op.Origin)
      diag(Op.Origin->getBeginLoc(), msg::DTensorComesFrom, DiagnosticIDs::Note)
          << operandName(*Op.E, Ctx) << originName(*Op.Origin);
  }
  for (const CallExpr *Earlier : FixedEarlier)
    diag(Earlier->getBeginLoc(), msg::SharedElementFix, DiagnosticIDs::Note);
  for (const Expr *E : Unwrappable)
    diag(E->getBeginLoc(), msg::DTensorInMacro, DiagnosticIDs::Note)
        << operandName(*E, Ctx);
  for (const Expr *E : Site.MaybeDTensorElements)
    diag(E->getBeginLoc(), msg::MaybeDTensorNoFix, DiagnosticIDs::Note)
        << operandName(*E, Ctx);
  if (MeshAware)
    diag(Call.getBeginLoc(), msg::UseMeshAwareCollective, DiagnosticIDs::Note)
        << MeshAware->Function;
  Findings.fixNote(Call.getBeginLoc(), Fix);
}

} // namespace tidy
} // namespace meshguard
