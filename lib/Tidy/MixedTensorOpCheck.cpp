//===--- MixedTensorOpCheck.cpp - dtensor-mixed-tensor-op -----------------===//

#include "MixedTensorOpCheck.h"
#include "CalleeNotes.h"
#include "DiagnosticMessages.h"
#include "DiagnosticText.h"
#include "Fixes/EditableSource.h"
#include "Fixes/FindingFix.h"
#include "Fixes/MeshInScope.h"
#include "meshguard/Analysis/Provenance/TensorOperands.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Lex/Lexer.h"

using namespace clang;
using namespace meshguard::analysis;

namespace meshguard {
namespace tidy {

std::vector<StringRef> MixedTensorOpCheck::interestingCallees() const {
  // A function is worth analysing when it makes a DTensor: a mix needs one.
  std::vector<StringRef> Names;
  for (const SourceEntry &E : Index->model().Sources)
    if (E.Kind == SourceKind::DTensor)
      Names.emplace_back(E.Function);
  return Names;
}

void MixedTensorOpCheck::analyse(const FunctionDecl &FD, ASTContext &Ctx) {
  const FunctionFacts &Facts = engine(Ctx).facts(FD);
  if (!finished(FD, Facts.Result,
                "tensor ops mixing DTensors and plain tensors"))
    return;
  for (const MixedOpSite &Site : Facts.MixedOps)
    if (Site.Inner || Site.InnerElsewhere)
      reportCallThrough(Site, Ctx);
    else
      report(FD, Site, Ctx);
}

void MixedTensorOpCheck::reportCallThrough(const MixedOpSite &Site,
                                           ASTContext &Ctx) {
  bool GivesDTensor = Site.DTensor.E != nullptr;
  const OperandFact &Given = GivesDTensor ? Site.DTensor : Site.Plain.front();
  diag(Site.Call->getBeginLoc(), msg::CallMixesInCallee)
      << calleeName(*Site.Call, Ctx) << operandName(*Given.E, Ctx)
      << GivesDTensor;
  noteInCallee(*this, Site.Inner, Site.InnerElsewhere, *Site.Call,
               msg::MixedOpInCallee, Ctx)
      << GivesDTensor;
}

/// The variable \p E names, looking through implicit nodes and copies (the
/// elements of a braced tensor list are copies).
static const VarDecl *namedVariable(const Expr *E) {
  E = E->IgnoreImplicit()->IgnoreParens();
  if (const Expr *Source = copySource(E))
    E = Source->IgnoreImplicit()->IgnoreParens();
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E))
    return dyn_cast<VarDecl>(Ref->getDecl());
  return nullptr;
}

void MixedTensorOpCheck::report(const FunctionDecl &FD, const MixedOpSite &Site,
                                ASTContext &Ctx) {
  const CallExpr &Call = *Site.Call;
  const SourceManager &SM = Ctx.getSourceManager();
  // The DTensor operand's own mesh is the right one; else one in scope.
  std::optional<std::string> Mesh;
  if (const VarDecl *VD = namedVariable(Site.DTensor.E);
      VD && VD->getIdentifier() && !Index->model().MeshOfFunction.empty())
    Mesh = "*" + Index->model().MeshOfFunction + "(" +
           (VD->getType()->isPointerType() ? "*" : "") + VD->getNameAsString() +
           ")";
  else
    Mesh =
        meshExpressionInScope(FD, Call, Site.DTensorVars, *Index, &MeshCache);

  // A plain tensor that an in-place op modifies (`p += w`) cannot be wrapped:
  // the op would update a temporary and `p` would keep its old value.
  const OperandFact *PlainSelf = nullptr;
  for (const OperandFact &P : Site.Plain)
    if (Site.InPlaceSelf && P.E == Site.InPlaceSelf)
      PlainSelf = &P;

  llvm::SmallVector<FixItHint, 4> Fixes;
  if (Mesh && !PlainSelf)
    for (const OperandFact &P : Site.Plain) {
      SourceRange R = P.E->getSourceRange();
      // A plain tensor reached through a pointer (`q->add(w)`) is no
      // tensor expression to wrap.
      SourceLocation After =
          !P.E->getType()->isPointerType() &&
                  isEditable({R.getBegin(), R.getEnd()}, SM)
              ? Lexer::getLocForEndOfToken(R.getEnd(), 0, SM, Ctx.getLangOpts())
              : SourceLocation();
      if (After.isInvalid()) {
        Fixes.clear();
        break;
      }
      Fixes.push_back(
          FixItHint::CreateInsertion(R.getBegin(), "meshguard::from_local("));
      Fixes.push_back(FixItHint::CreateInsertion(
          After, ", " + *Mesh + ", {meshguard::Replicate{}})"));
    }
  FindingFix Fix;
  for (const FixItHint &Hint : Fixes)
    Fix.add(Hint);
  Fix.Title = "wrap " +
              (Site.Plain.size() == 1 ? quotedText(*Site.Plain.front().E, Ctx)
                                      : std::string("the plain tensors")) +
              " as a Replicate DTensor on the mesh of " +
              quotedText(*Site.DTensor.E, Ctx);
  FindingReporter Findings(*this, areDiagsSelfContained());
  Findings.warning(Call.getBeginLoc(), msg::MixedOp, Fix)
      << operandName(*Site.DTensor.E, Ctx)
      << operandName(*Site.Plain.front().E, Ctx);
  if (Site.DTensor.Origin)
    diag(Site.DTensor.Origin->getBeginLoc(), msg::DTensorComesFrom,
         DiagnosticIDs::Note)
        << operandName(*Site.DTensor.E, Ctx)
        << originName(*Site.DTensor.Origin);
  for (const OperandFact &P : Site.Plain)
    if (P.Origin)
      diag(P.Origin->getBeginLoc(), msg::PlainComesFrom, DiagnosticIDs::Note)
          << operandName(*P.E, Ctx) << originName(*P.Origin);
  if (PlainSelf)
    diag(PlainSelf->E->getBeginLoc(), msg::InPlacePlainSelf,
         DiagnosticIDs::Note)
        << operandName(*PlainSelf->E, Ctx);
  else if (!Mesh)
    diag(Call.getBeginLoc(), msg::WrapPlainAsReplicate, DiagnosticIDs::Note);
  Findings.fixNote(Call.getBeginLoc(), Fix);
}

} // namespace tidy
} // namespace meshguard
