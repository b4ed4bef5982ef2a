//===--- RankDivergentCollectiveCheck.cpp - dtensor-rank-divergent-collective
//===//

#include "RankDivergentCollectiveCheck.h"
#include "CalleeNotes.h"
#include "DiagnosticMessages.h"
#include "DiagnosticText.h"
#include "Fixes/FindingFix.h"
#include "Fixes/HoistGatherFix.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Lex/Lexer.h"

using namespace clang;
using namespace meshguard::analysis;

namespace meshguard {
namespace tidy {

std::vector<StringRef>
RankDivergentCollectiveCheck::interestingCallees() const {
  return Index->allCollectiveNames();
}

void RankDivergentCollectiveCheck::analyse(const FunctionDecl &FD,
                                           ASTContext &Ctx) {
  DivergenceScan Scan = engine(Ctx).divergence(FD);
  if (!finished(FD, Scan.Result, "collectives that not every rank reaches"))
    return;
  for (const DivergentCollective &D : Scan.Sites)
    report(D, FD, Ctx);
}

static StringRef exitName(const Stmt *Exit) {
  if (isa_and_nonnull<ReturnStmt>(Exit))
    return "return";
  if (isa_and_nonnull<BreakStmt>(Exit))
    return "break";
  if (isa_and_nonnull<ContinueStmt>(Exit))
    return "continue";
  if (isa_and_nonnull<CXXThrowExpr>(Exit))
    return "throw";
  if (isa_and_nonnull<GotoStmt>(Exit))
    return "goto";
  return "exit";
}

void RankDivergentCollectiveCheck::report(const DivergentCollective &D,
                                          const FunctionDecl &FD,
                                          ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  const CollectiveCall &C = D.Collective;
  SourceLocation Loc = SM.getExpansionLoc(C.Call->getBeginLoc());
  if (!firstReportAt(Loc))
    return;
  // "collective 'x'" or "'helper' (it performs the collective 'x')".
  std::string What = C.Helper
                         ? "'" + C.Name + "', which performs the collective '" +
                               C.InnerName + "',"
                         : "collective '" + C.Name + "'";
  FindingReporter Findings(*this, areDiagsSelfContained());
  FindingFix Fix;
  switch (D.Shape) {
  case DivergenceShape::InBranch:
    for (const FixItHint &Hint : hoistGather(D, FD, Ctx))
      Fix.add(Hint);
    Fix.Title = "call '" + C.Name + "' on every rank, before the branch";
    Findings.warning(Loc, msg::RankOnlyWhereConditionHolds, Fix) << What;
    break;
  case DivergenceShape::DifferentSequences:
    diag(Loc, msg::RankDifferentSequences) << D.ThenSequence << D.ElseSequence;
    break;
  case DivergenceShape::LoopTripCount:
    diag(Loc, msg::RankLoopTripCount) << What;
    break;
  case DivergenceShape::AfterEarlyExit:
    diag(Loc, msg::RankAfterEarlyExit) << What << exitName(D.Exit);
    break;
  case DivergenceShape::RankDependentArgument:
    diag(Loc, msg::RankDependentArgument)
        << C.Name << C.InnerName
        << (D.Param->getName().empty()
                ? "#" + std::to_string(D.Param->getFunctionScopeIndex() + 1)
                : D.Param->getName().str());
    diag(D.Argument->getBeginLoc(), msg::RankArgumentNote, DiagnosticIDs::Note);
    break;
  }
  if (D.Condition)
    diag(D.Condition->getBeginLoc(),
         D.Shape == DivergenceShape::LoopTripCount ? msg::RankLoopConditionNote
                                                   : msg::RankConditionNote,
         DiagnosticIDs::Note);
  if (D.RankOrigin)
    diag(D.RankOrigin->getBeginLoc(), msg::RankOriginNote, DiagnosticIDs::Note)
        << quotedText(*D.RankOrigin, Ctx);
  if (D.Exit)
    diag(D.Exit->getBeginLoc(), msg::RankExitNote, DiagnosticIDs::Note);
  if (D.ParamCondition)
    diag(D.ParamCondition->getBeginLoc(), msg::RankParameterDecidesNote,
         DiagnosticIDs::Note)
        << C.Name;
  // Inside the helper; for one of another file, "inside 'sync'
  // (dist_utils.cpp:13): ..." at its recorded place.
  if (C.Helper && (C.Inner || C.InnerElsewhere))
    noteInCallee(*this, C.Inner, C.InnerElsewhere, *C.Call,
                 msg::RankHelperPerformsNote, Ctx)
        << C.Name << C.InnerName;
  Findings.fixNote(Loc, Fix);
}

} // namespace tidy
} // namespace meshguard
