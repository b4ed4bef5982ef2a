//===--- UnverifiedReplicateCheck.cpp - dtensor-unverified-replicate ------===//

#include "UnverifiedReplicateCheck.h"
#include "CalleeNotes.h"
#include "DiagnosticMessages.h"
#include "DiagnosticText.h"
#include "Fixes/EditableSource.h"
#include "Fixes/FindingFix.h"
#include "meshguard/Analysis/Divergence/RankAtCalls.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/DenseSet.h"

using namespace clang;
using namespace meshguard::analysis;

namespace meshguard {
namespace tidy {

static std::optional<FixItHint> verifyFix(const UnverifiedReplica &R,
                                          ASTContext &Ctx);

void UnverifiedReplicateCheck::analyse(const FunctionDecl &FD,
                                       ASTContext &Ctx) {
  UnverifiedReplicaScan Scan = engine(Ctx).unverifiedReplicas(FD);
  if (!finished(FD, Scan.Result, "unverified Replicate claims"))
    return;
  for (const UnverifiedReplica &R : Scan.Sites)
    report(R, Ctx);
  // A shard's (or a Partial value's) local tensor called a replica: from
  // the placements, whatever the rank analysis says.
  const PlacementScan &Placements = engine(Ctx).placements(FD);
  if (!Placements.Result.ok())
    return;
  llvm::DenseSet<const CallExpr *> Done;
  for (const UnverifiedReplica &R : Scan.Sites)
    Done.insert(R.Call);
  for (const LocalReplica &R : Placements.LocalReplicas) {
    Done.insert(R.Call);
    report(R, Ctx);
  }
  // Rows unpacked by a structured binding, data drawn from a generator
  // seeded with the rank: the rank analysis is asked about the call that
  // made them (rare shapes: asked only when the function has one).
  for (const ReplicaSourceCandidate &C :
       replicaSourceCandidates(FD, engine(Ctx).index(), Ctx)) {
    if (Done.count(C.Call))
      continue;
    RankAtCallsScan Rank = engine(Ctx).rankAtCalls(FD, {{C.Probe, C.ProbeArg}});
    if (!Rank.Result.ok())
      return;
    auto It = Rank.Calls.find(C.Probe);
    if (It == Rank.Calls.end() || !It->second.ArgumentOrigin)
      continue;
    Done.insert(C.Call);
    report(C, *It->second.ArgumentOrigin, Ctx);
  }
}

bool UnverifiedReplicateCheck::warnAt(const CallExpr *Call,
                                      const Expr *VerifyArg,
                                      unsigned VerifyIndex, ASTContext &Ctx) {
  SourceLocation Loc =
      Ctx.getSourceManager().getExpansionLoc(Call->getBeginLoc());
  if (!firstReportAt(Loc))
    return false;
  UnverifiedReplica Site;
  Site.Call = Call;
  Site.VerifyArg = VerifyArg;
  Site.VerifyIndex = VerifyIndex;
  FindingFix Fix;
  if (std::optional<FixItHint> Hint = verifyFix(Site, Ctx)) {
    Fix.add(*Hint);
    Fix.Title = "have the runtime verify the replicas: run_check=true";
  }
  FindingReporter Findings(*this, areDiagsSelfContained());
  Findings.warning(Loc, msg::UnverifiedReplicate, Fix);
  Findings.fixNote(Loc, Fix);
  return true;
}

void UnverifiedReplicateCheck::report(const ReplicaSourceCandidate &C,
                                      const Expr &RankOrigin, ASTContext &Ctx) {
  if (C.What == ReplicaSourceCandidate::Kind::StyleInput) {
    SourceLocation Loc =
        Ctx.getSourceManager().getExpansionLoc(C.Call->getBeginLoc());
    if (!firstReportAt(Loc))
      return;
    const FunctionDecl *Callee = C.Call->getDirectCallee();
    diag(Loc, msg::UnverifiedReplicateStyleInput)
        << (Callee ? Callee->getNameAsString() : std::string());
    diag(C.Local->getBeginLoc(), msg::UnverifiedReplicateArgumentNote,
         DiagnosticIDs::Note);
    if (C.Style)
      diag(C.Style->getBeginLoc(), msg::UnverifiedReplicateStyleNote,
           DiagnosticIDs::Note);
    diag(RankOrigin.getBeginLoc(), msg::RankOriginNote, DiagnosticIDs::Note)
        << quotedText(RankOrigin, Ctx);
    return;
  }
  if (!warnAt(C.Call, C.VerifyArg, C.VerifyIndex, Ctx))
    return;
  diag(C.Local->getBeginLoc(), msg::UnverifiedReplicateLocalNote,
       DiagnosticIDs::Note);
  const Expr *Probe = C.ProbeArg < C.Probe->getNumArgs()
                          ? C.Probe->getArg(C.ProbeArg)
                          : C.Probe;
  if (C.What == ReplicaSourceCandidate::Kind::Binding)
    diag(Probe->getBeginLoc(), msg::RankArgumentNote, DiagnosticIDs::Note);
  else
    diag(C.What == ReplicaSourceCandidate::Kind::Seeded ? C.Probe->getBeginLoc()
                                                        : Probe->getBeginLoc(),
         msg::UnverifiedReplicateSeededNote, DiagnosticIDs::Note)
        << (C.What == ReplicaSourceCandidate::Kind::Generator);
  diag(RankOrigin.getBeginLoc(), msg::RankOriginNote, DiagnosticIDs::Note)
      << quotedText(RankOrigin, Ctx);
}

void UnverifiedReplicateCheck::report(const LocalReplica &R, ASTContext &Ctx) {
  if (!warnAt(R.Call, R.VerifyArg, R.VerifyIndex, Ctx))
    return;
  auto Note = [&](const NotePlace &At, StringRef Message) {
    return noteInCallee(*this, At.Here, At.Elsewhere, *R.Call, Message, Ctx);
  };
  diag(R.Local->getBeginLoc(), msg::UnverifiedReplicateShardNote,
       DiagnosticIDs::Note)
      << R.Partial;
  if (R.PlacedAt)
    Note(R.PlacedAt, msg::UnverifiedReplicatePlacedNote) << R.Partial;
}

/// run_check=true: `false` replaced, or the argument added after the one
/// before it (when that one is written).
static std::optional<FixItHint> verifyFix(const UnverifiedReplica &R,
                                          ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  if (R.VerifyArg) {
    if (!isEditable({R.VerifyArg->getBeginLoc(), R.VerifyArg->getEndLoc()}, SM))
      return std::nullopt;
    return FixItHint::CreateReplacement(R.VerifyArg->getSourceRange(), "true");
  }
  if (R.VerifyIndex == 0 || R.VerifyIndex > R.Call->getNumArgs())
    return std::nullopt;
  const Expr *Before = R.Call->getArg(R.VerifyIndex - 1);
  if (isa<CXXDefaultArgExpr>(Before) || !isEditable({Before->getEndLoc()}, SM))
    return std::nullopt;
  SourceLocation End =
      Lexer::getLocForEndOfToken(Before->getEndLoc(), 0, SM, Ctx.getLangOpts());
  if (End.isInvalid())
    return std::nullopt;
  return FixItHint::CreateInsertion(End, ", /*run_check=*/true");
}

void UnverifiedReplicateCheck::report(const UnverifiedReplica &R,
                                      ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  SourceLocation Loc = SM.getExpansionLoc(R.Call->getBeginLoc());
  if (!firstReportAt(Loc))
    return;
  if (R.Helper) {
    // The helper's code is right for a uniform argument: no edit inside.
    diag(Loc, msg::UnverifiedReplicateThroughHelper)
        << R.Helper->getQualifiedNameAsString();
    if (R.Inner.FromLocal && R.Inner.FromLocalIn)
      diag(R.Inner.FromLocal->getBeginLoc(),
           msg::UnverifiedReplicateInHelperNote, DiagnosticIDs::Note)
          << R.Inner.FromLocalIn->getNameAsString();
    else
      noteInCallee(*this, nullptr, R.Inner.Elsewhere, *R.Call,
                   msg::UnverifiedReplicateInCalleeNote, Ctx);
  } else {
    auto Diag = diag(Loc, msg::UnverifiedReplicate);
    if (std::optional<FixItHint> Fix = verifyFix(R, Ctx))
      Diag << *Fix;
  }
  diag(R.Local->getBeginLoc(),
       R.Helper ? msg::UnverifiedReplicateArgumentNote
                : msg::UnverifiedReplicateLocalNote,
       DiagnosticIDs::Note);
  diag(R.RankOrigin->getBeginLoc(), msg::RankOriginNote, DiagnosticIDs::Note)
      << quotedText(*R.RankOrigin, Ctx);
}

} // namespace tidy
} // namespace meshguard
