//===--- CollectiveWithoutMeshCheck.cpp - dtensor-collective-without-mesh
//--===//

#include "CollectiveWithoutMeshCheck.h"
#include "CalleeNotes.h"
#include "DiagnosticMessages.h"
#include "DiagnosticText.h"
#include "Fixes/DistributeModuleFix.h"
#include "Fixes/EditableSource.h"
#include "Fixes/FindingFix.h"
#include "Fixes/MeshInScope.h"
#include "NamedFunctions.h"
#include "meshguard/Analysis/Provenance/ModuleNavigation.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/Lexer.h"

using namespace clang;
using namespace clang::ast_matchers;
using namespace meshguard::analysis;

namespace meshguard {
namespace tidy {

CollectiveWithoutMeshCheck::CollectiveWithoutMeshCheck(
    StringRef Name, clang::tidy::ClangTidyContext *Context)
    : DTensorCheckBase(Name, Context),
      StrictMode(getBoolOption(Config, Name, Options, "StrictMode", false)) {}

void CollectiveWithoutMeshCheck::storeOptions(
    clang::tidy::ClangTidyOptions::OptionMap &Opts) {
  storeBoolOption(Opts, Options, "StrictMode", StrictMode);
  DTensorCheckBase::storeOptions(Opts);
}

std::vector<StringRef> CollectiveWithoutMeshCheck::interestingCallees() const {
  return Index->meshCollectiveNames();
}

void CollectiveWithoutMeshCheck::analyse(const FunctionDecl &FD,
                                         ASTContext &Ctx) {
  const FunctionFacts &Facts = engine(Ctx).facts(FD);
  if (!finished(FD, Facts.Result, "collectives without a DeviceMesh"))
    return;
  for (const CollectiveSite &Site : Facts.Collectives)
    report(FD, Site, Ctx);
}

/// Rewrites `dist::broadcast_(ts, 0)` into `guarded::broadcast_(ts, mesh, 0)`.
static std::optional<std::pair<FixItHint, FixItHint>>
guardedRewrite(const CallExpr &Call, const MeshCollectiveEntry &Entry,
               llvm::StringRef Mesh, ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  const Expr *Callee = Call.getCallee()->IgnoreImplicit();
  const Expr *Arg = Call.getArg(Entry.TensorArg);
  if (Entry.Guarded.empty() || isa<CXXDefaultArgExpr>(Arg) ||
      !isa<DeclRefExpr>(Callee))
    return std::nullopt;
  SourceRange CalleeRange = Callee->getSourceRange();
  SourceLocation ArgEnd = Arg->getEndLoc();
  if (!isEditable({Call.getBeginLoc(), Call.getEndLoc(), CalleeRange.getBegin(),
                   CalleeRange.getEnd(), ArgEnd},
                  SM))
    return std::nullopt;
  SourceLocation AfterArg =
      Lexer::getLocForEndOfToken(ArgEnd, 0, SM, Ctx.getLangOpts());
  if (AfterArg.isInvalid())
    return std::nullopt;
  return std::make_pair(
      FixItHint::CreateReplacement(CharSourceRange::getTokenRange(CalleeRange),
                                   Entry.Guarded),
      FixItHint::CreateInsertion(AfterArg, (", " + Mesh).str()));
}

/// The title of distributeModuleFix's fix.
static std::string distributeTitle(const VarDecl &Module) {
  return ("distribute '" + Module.getName() + "' where it is created").str();
}

void CollectiveWithoutMeshCheck::report(const FunctionDecl &FD,
                                        const CollectiveSite &Site,
                                        ASTContext &Ctx) {
  if (Site.Inner || Site.InnerElsewhere) {
    reportThroughCall(FD, Site, Ctx);
    return;
  }
  const CallExpr &Call = *Site.Call;
  const MeshCollectiveEntry &Entry = *Site.Entry;
  if (Site.Verdict == MeshVerdict::MaybeNoMesh) {
    if (!StrictMode)
      return;
    diag(Call.getBeginLoc(), msg::MaybeNoMesh) << Entry.OpName;
    for (const OperandFact &Op : Site.Operands)
      if (Op.P == Provenance::MaybePlain)
        diag(Op.E->getBeginLoc(), msg::MaybePlainOperand, DiagnosticIDs::Note)
            << operandName(*Op.E, Ctx);
    return;
  }

  // The rewrite calls the guarded form: only if this TU declares it, with a
  // mesh it takes (after the tensors), never one of another mesh type the
  // model lists.
  llvm::SmallVector<const FunctionDecl *, 2> Guarded =
      Entry.Guarded.empty() ? llvm::SmallVector<const FunctionDecl *, 2>()
                            : functionsNamed(Ctx, Entry.Guarded);
  auto Accepts = [&](QualType Mesh) {
    return acceptsArgument(Guarded, Entry.TensorArg + 1, Mesh);
  };
  std::optional<std::string> Mesh =
      Guarded.empty() ? std::nullopt
                      : meshExpressionInScope(FD, Call, Site.DTensorVars,
                                              *Index, &MeshCache, Accepts);
  // The parameters of a module never distributed: distributing the module
  // is the fix (once per module), not a guarded collective.
  const VarDecl *Module =
      Site.Operands.size() == 1 && Site.Operands.front().IsContainer
          ? parametersOfLocalModule(*Site.Operands.front().E)
          : nullptr;
  std::optional<FixItHint> ModuleFix =
      Module ? distributeOnce(FD, *Module) : std::nullopt;
  FindingFix Fix;
  if (ModuleFix) {
    Fix.add(*ModuleFix);
    Fix.Title = distributeTitle(*Module);
  } else if (Mesh && !(Module && FixedModules.contains(Module))) {
    if (auto Rewrite = guardedRewrite(Call, Entry, *Mesh, Ctx)) {
      Fix.add(Rewrite->first);
      Fix.add(Rewrite->second);
      Fix.Title = "call '" + Entry.Guarded + "' with the mesh '" + *Mesh + "'";
    }
  }
  FindingReporter Findings(*this, areDiagsSelfContained());
  Findings.warning(Call.getBeginLoc(), msg::NoMesh, Fix) << Entry.OpName;
  for (const OperandFact &Op : Site.Operands)
    noteOperand(*this, Op, Ctx);
  if (!Mesh && Guarded.empty())
    diag(Call.getBeginLoc(), msg::MakeOneDTensor, DiagnosticIDs::Note)
        << !Entry.Guarded.empty() << Entry.Guarded;
  else if (!Mesh)
    diag(Call.getBeginLoc(), msg::NoMeshInScope, DiagnosticIDs::Note)
        << Entry.Guarded;
  Findings.fixNote(Call.getBeginLoc(), Fix);
}

void CollectiveWithoutMeshCheck::reportThroughCall(const FunctionDecl &FD,
                                                   const CollectiveSite &Site,
                                                   ASTContext &Ctx) {
  if (Site.Verdict == MeshVerdict::MaybeNoMesh && !StrictMode)
    return;
  const CallExpr &Call = *Site.Call;
  const OperandFact &Arg = Site.Operands.front();
  if (Arg.IsModule) {
    reportUndistributedModule(FD, Site, Ctx);
    return;
  }
  if (Site.Verdict == MeshVerdict::NoMesh)
    diag(Call.getBeginLoc(), msg::CallReachesNoMesh)
        << calleeName(Call, Ctx) << Site.Entry->OpName
        << operandName(*Arg.E, Ctx);
  else
    diag(Call.getBeginLoc(), msg::CallMayReachNoMesh)
        << calleeName(Call, Ctx) << Site.Entry->OpName
        << operandName(*Arg.E, Ctx);
  if (Arg.Origin)
    noteOperand(*this, Arg, Ctx);
  noteInCallee(*this, Site.Inner, Site.InnerElsewhere, Call,
               msg::CollectiveInCallee, Ctx)
      << givenByCapture(Call, *Arg.E, Ctx);
}

void CollectiveWithoutMeshCheck::reportUndistributedModule(
    const FunctionDecl &FD, const CollectiveSite &Site, ASTContext &Ctx) {
  const CallExpr &Call = *Site.Call;
  const OperandFact &Arg = Site.Operands.front();
  const VarDecl *Module = moduleVariable(Arg.E, *Index);
  std::string Name =
      Module ? Module->getNameAsString() : operandName(*Arg.E, Ctx);
  FindingFix Fix;
  if (Module && Site.Verdict == MeshVerdict::NoMesh)
    if (std::optional<FixItHint> Hint = distributeOnce(FD, *Module)) {
      Fix.add(*Hint);
      Fix.Title = distributeTitle(*Module);
    }
  FindingReporter Findings(*this, areDiagsSelfContained());
  Findings.warning(Call.getBeginLoc(), msg::CallReachesUndistributedModule, Fix)
      << calleeName(Call, Ctx) << Site.Entry->OpName << Name
      << (Site.Verdict != MeshVerdict::NoMesh);
  if (Module && !isa<ParmVarDecl>(Module))
    diag(Module->getLocation(), msg::ModuleCreatedHere, DiagnosticIDs::Note)
        << Name << distributeModuleArgument(*Module, *Index);
  noteInCallee(*this, Site.Inner, Site.InnerElsewhere, Call,
               msg::CollectiveOnModuleParameters, Ctx);
  Findings.fixNote(Call.getBeginLoc(), Fix);
}

std::optional<FixItHint>
CollectiveWithoutMeshCheck::distributeOnce(const FunctionDecl &FD,
                                           const VarDecl &Module) {
  if (FixedModules.contains(&Module))
    return std::nullopt;
  std::optional<FixItHint> Fix =
      distributeModuleFix(FD, Module, *Index, &MeshCache);
  if (Fix)
    FixedModules.insert(&Module);
  return Fix;
}

} // namespace tidy
} // namespace meshguard
