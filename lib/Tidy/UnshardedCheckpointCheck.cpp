//===--- UnshardedCheckpointCheck.cpp - dtensor-unsharded-checkpoint ------===//

#include "UnshardedCheckpointCheck.h"
#include "CalleeNotes.h"
#include "DiagnosticMessages.h"
#include "DiagnosticText.h"
#include "Fixes/CheckpointRewrite.h"
#include "Fixes/FindingFix.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ASTLambda.h"
#include "clang/AST/ExprCXX.h"

using namespace clang;
using namespace meshguard::analysis;

namespace meshguard {
namespace tidy {

void UnshardedCheckpointCheck::analyse(const FunctionDecl &FD,
                                       ASTContext &Ctx) {
  const FunctionFacts &Facts = engine(Ctx).facts(FD);
  if (!finished(FD, Facts.Result, "libtorch checkpoints of DTensors"))
    return;
  std::vector<const CheckpointSite *> Findings;
  // The saves whose path (argument 1) and rank guard matter.
  llvm::DenseMap<const CallExpr *, unsigned> Saves;
  for (const CheckpointSite &Site : Facts.Checkpoints) {
    if (Site.Inner || Site.InnerElsewhere) {
      reportCallThrough(Site, Ctx);
      continue;
    }
    // A module holds DTensors when the provenance model says so on every
    // path, or a call before this one in the function distributes it (the
    // model does not follow fully_shard and parallelize_module).
    if (Site.What == CheckpointValue::Module && !Site.Distributed &&
        distributionsBefore(FD, *Site.Value, *Site.Call, *Index, Ctx).empty())
      continue;
    // Loading into a local tensor, or writing it into an archive (whose
    // file save_to names), is no mistake of its own.
    if (Site.What == CheckpointValue::LocalShard &&
        Site.Kind != CheckpointCall::Save)
      continue;
    Findings.push_back(&Site);
    if (Site.Kind == CheckpointCall::Save)
      Saves[Site.Call] = 1;
  }
  if (Findings.empty())
    return;
  RankAtCallsScan Rank = engine(Ctx).rankAtCalls(FD, Saves);
  for (const CheckpointSite *Site : Findings)
    report(*Site, FD, Rank, Ctx);
}

void UnshardedCheckpointCheck::reportCallThrough(const CheckpointSite &Site,
                                                 ASTContext &Ctx) {
  const CallExpr &Call = *Site.Call;
  SourceLocation Loc =
      Ctx.getSourceManager().getExpansionLoc(Call.getBeginLoc());
  if (!firstReportAt(Loc))
    return;
  bool Load = Site.Kind == CheckpointCall::Load;
  diag(Loc, msg::CallCheckpointsDTensor)
      << calleeName(Call, Ctx) << Load << operandName(*Site.Operand, Ctx);
  noteInCallee(*this, Site.Inner, Site.InnerElsewhere, Call,
               msg::CheckpointInCallee, Ctx)
      << Load << givenByCapture(Call, *Site.Value, Ctx);
  if (Site.Origin && !Site.IsContainer)
    diag(Site.Origin->getBeginLoc(), msg::DTensorComesFrom, DiagnosticIDs::Note)
        << operandName(*Site.Operand, Ctx) << originName(*Site.Origin);
}

/// How the finding names the call.
static StringRef callName(CheckpointCall Kind) {
  switch (Kind) {
  case CheckpointCall::Save:
    return "torch::save";
  case CheckpointCall::Load:
    return "torch::load";
  case CheckpointCall::ArchiveWrite:
    return "OutputArchive::write";
  }
  return "";
}

/// The module object \p Value denotes, as module_state takes it.
static std::string moduleObjectText(const Expr &Value, const ApiIndex &Index,
                                    ASTContext &Ctx) {
  std::string Text = sourceText(Value, Ctx);
  if (Text.empty() || Index.isModuleObjectType(Value.getType()))
    return Text;
  const Expr *E = Value.IgnoreParenImpCasts();
  if (isa<DeclRefExpr>(E) || isa<MemberExpr>(E))
    return "*" + Text;
  return "*(" + Text + ")";
}

/// How a note names a module: `model` for `*model`.
static std::string moduleName(const Expr &Module, ASTContext &Ctx) {
  const Expr *E = Module.IgnoreParenImpCasts();
  if (const auto *U = dyn_cast<UnaryOperator>(E);
      U && U->getOpcode() == UO_Deref)
    E = U->getSubExpr();
  else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E);
           Op && Op->getOperator() == OO_Star && Op->getNumArgs() == 1)
    E = Op->getArg(0);
  return operandName(*E, Ctx);
}

/// The one mesh variable the distributing calls all name, or null.
static const VarDecl *distributionMesh(llvm::ArrayRef<ModuleDistribution> Calls,
                                       const ApiIndex &Index) {
  const VarDecl *Mesh = nullptr;
  for (const ModuleDistribution &D : Calls) {
    const auto *Ref = dyn_cast<DeclRefExpr>(D.Mesh->IgnoreParenImpCasts());
    const auto *VD = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
    if (!VD || !Index.isMeshType(VD->getType()) ||
        VD->getType()->isPointerType() || (Mesh && Mesh != VD))
      return nullptr;
    Mesh = VD;
  }
  return Mesh;
}

std::optional<FixItHint>
UnshardedCheckpointCheck::saveFix(const CheckpointSite &Site,
                                  const FunctionDecl &FD, const Expr *Mesh,
                                  bool &NoMesh, ASTContext &Ctx) {
  if (Site.Call->getNumArgs() != 2 || !isPathArgument(*Site.Call->getArg(1)))
    return std::nullopt;
  if (Site.What == CheckpointValue::Module) {
    const VarDecl *MeshVar = nullptr;
    if (const auto *Ref = dyn_cast_or_null<DeclRefExpr>(Mesh))
      MeshVar = dyn_cast<VarDecl>(Ref->getDecl());
    // The distributing call's mesh, when the save's place sees it under
    // that name (declared before; no other variable of that name).
    std::optional<std::string> InScope =
        meshExpressionInScope(FD, *Site.Call, {}, *Index, &MeshCache);
    if (!MeshVar || !InScope || *InScope != MeshVar->getName() ||
        !onlyVariableNamed(FD, *MeshVar)) {
      NoMesh = true;
      return std::nullopt;
    }
    std::string Module = moduleObjectText(*Site.Value, *Index, Ctx);
    if (Module.empty())
      return std::nullopt;
    return checkpointSaveFix(
        *Site.Call, "meshguard::checkpoint::module_state(" + Module + ")",
        MeshVar->getName(), Ctx);
  }
  // A DTensor variable: its entry is named after it, its mesh is its own.
  const auto *Ref = dyn_cast<DeclRefExpr>(Site.Operand->IgnoreParenImpCasts());
  const auto *VD = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  if (Site.IsContainer || !VD || !VD->getIdentifier())
    return std::nullopt;
  std::string Name = VD->getName().str();
  return checkpointSaveFix(*Site.Call, "{{\"" + Name + "\", " + Name + "}}",
                           "*meshguard::mesh_of(" + Name + ")", Ctx);
}

void UnshardedCheckpointCheck::report(const CheckpointSite &Site,
                                      const FunctionDecl &FD,
                                      const RankAtCallsScan &Rank,
                                      ASTContext &Ctx) {
  const CallExpr &Call = *Site.Call;
  SourceLocation Loc =
      Ctx.getSourceManager().getExpansionLoc(Call.getBeginLoc());
  const CallRankFacts *RankFacts = nullptr;
  if (Rank.Result.ok())
    if (auto It = Rank.Calls.find(&Call); It != Rank.Calls.end())
      RankFacts = &It->second;
  // One rank writing its shard, or each rank a file of its own, may be
  // meant (a Replicate DTensor's local tensor is the whole value).
  if (Site.What == CheckpointValue::LocalShard &&
      (!RankFacts || RankFacts->ControlOrigin || RankFacts->ArgumentOrigin))
    return;
  if (!firstReportAt(Loc))
    return;
  std::string Name = operandName(*Site.Operand, Ctx);
  bool IsModule = Site.What == CheckpointValue::Module;
  if (Site.What == CheckpointValue::LocalShard) {
    diag(Loc, msg::SaveLocalShard) << callName(Site.Kind) << Name;
    const auto *ToLocal = cast<CallExpr>(Site.Origin);
    diag(ToLocal->getBeginLoc(), msg::LocalShardTakenHere, DiagnosticIDs::Note)
        << operandName(*ToLocal->getArg(0), Ctx);
    return;
  }
  llvm::SmallVector<ModuleDistribution, 2> Distributions;
  if (IsModule)
    Distributions = distributionsBefore(FD, *Site.Value, Call, *Index, Ctx);
  std::optional<FixItHint> Fix;
  // Why a save gets no fix-it (a note at it), and the rank-dependent value
  // behind that.
  StringRef NoFix;
  const Expr *NoFixOrigin = nullptr;
  if (Site.Kind == CheckpointCall::Save && RankFacts) {
    const VarDecl *Mesh = distributionMesh(Distributions, *Index);
    if (isLambdaCallOperator(&FD)) {
      NoFix = msg::CheckpointSaveInLambda;
    } else if (RankFacts->ControlOrigin) {
      NoFix = msg::CheckpointSaveIsCollective;
      NoFixOrigin = RankFacts->ControlOrigin;
    } else if (RankFacts->ArgumentOrigin) {
      NoFix = msg::CheckpointPathPerRank;
      NoFixOrigin = RankFacts->ArgumentOrigin;
    } else if (IsModule && !Mesh) {
      NoFix = msg::CheckpointNoMesh;
    } else {
      const Expr *MeshArg = nullptr;
      for (const ModuleDistribution &D : Distributions)
        MeshArg = D.Mesh->IgnoreParenImpCasts();
      bool NoMesh = false;
      Fix = saveFix(Site, FD, MeshArg, NoMesh, Ctx);
      if (NoMesh)
        NoFix = msg::CheckpointNoMesh;
    }
  }
  FindingFix Finding;
  if (Fix) {
    Finding.add(*Fix);
    Finding.Title = "save with meshguard::checkpoint::save";
  }
  FindingReporter Findings(*this, areDiagsSelfContained());
  {
    bool Load = Site.Kind == CheckpointCall::Load;
    auto Warning = Findings.warning(Loc,
                                    Load       ? msg::LoadIntoDistributed
                                    : IsModule ? msg::SaveDistributedModule
                                               : msg::SaveDTensor,
                                    Finding);
    if (Load)
      Warning << Name << IsModule;
    else
      Warning << callName(Site.Kind) << Name << Site.IsContainer;
  }
  for (const ModuleDistribution &D : Distributions)
    diag(D.Call->getBeginLoc(), msg::ModuleDistributedHere, DiagnosticIDs::Note)
        << moduleName(*D.Module, Ctx);
  if (Site.IsContainer)
    diag(Site.Operand->getBeginLoc(), msg::HoldsDTensor, DiagnosticIDs::Note)
        << Name << true;
  else if (!IsModule && Site.Origin)
    diag(Site.Origin->getBeginLoc(), msg::DTensorComesFrom, DiagnosticIDs::Note)
        << Name << originName(*Site.Origin);
  if (!NoFix.empty())
    diag(Call.getBeginLoc(), NoFix, DiagnosticIDs::Note);
  if (NoFixOrigin)
    diag(NoFixOrigin->getBeginLoc(), msg::RankOriginNote, DiagnosticIDs::Note)
        << quotedText(*NoFixOrigin, Ctx);
  Findings.fixNote(Loc, Finding);
}

} // namespace tidy
} // namespace meshguard
