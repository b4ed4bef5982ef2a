//===--- DivergentCollectives.cpp - Collectives not every rank reaches ----===//
//
// Rank dependence (RankDependence.h) runs to a fixpoint over the function's
// CFG; then every block holding a collective is asked, through Clang's
// control-dependence calculator (post-dominance frontiers), which branch
// blocks decide whether it runs. Control dependence is followed
// transitively: a collective in a loop body after `if (rank == 0) break;`
// depends on the loop condition, which depends on that `if`.
//
//===----------------------------------------------------------------------===//

#include "meshguard/Analysis/DivergentCollectives.h"
#include "BranchSides.h"
#include "RankDependence.h"
#include "meshguard/Analysis/SummaryDatabase.h"
#include "clang/AST/ASTLambda.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Analysis/Analyses/Dominators.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace clang;

namespace meshguard {
namespace analysis {

bool isCollectiveCall(const CallExpr &Call, const ApiIndex &Index,
                      ASTContext &Ctx) {
  const FunctionDecl *Callee = Call.getDirectCallee();
  CollectiveKind Kind = Index.collectiveKind(Callee);
  if (Kind == CollectiveKind::None)
    return false;
  const ImplicitCollectiveEntry *E = Index.implicitCollective(Callee);
  if (Kind != CollectiveKind::Implicit || !E || E->FlagArg < 0)
    return true;
  // from_local(..., run_check): communicates only when the flag is set.
  unsigned Flag = E->FlagArg;
  if (Flag >= Call.getNumArgs() || isa<CXXDefaultArgExpr>(Call.getArg(Flag)))
    return false;
  bool Value = true;
  if (Call.getArg(Flag)->EvaluateAsBooleanCondition(Value, Ctx))
    return Value;
  return true;
}

DivergenceMemo::DivergenceMemo(ASTContext &Ctx, const ApiIndex &Index)
    : Ctx(Ctx), Index(Index) {}

DivergenceMemo::~DivergenceMemo() = default;

RankDependenceTU &DivergenceMemo::rankFacts() {
  if (!Facts)
    Facts = std::make_unique<RankDependenceTU>(Ctx, Index);
  return *Facts;
}

/// Calls in \p S in evaluation order (arguments before the call), lambda
/// bodies excluded.
static void callsIn(const Stmt *S,
                    llvm::SmallVectorImpl<const CallExpr *> &Out) {
  if (!S || isa<LambdaExpr>(S))
    return;
  for (const Stmt *Child : S->children())
    callsIn(Child, Out);
  if (const auto *Call = dyn_cast<CallExpr>(S))
    Out.push_back(Call);
}

const std::optional<CollectiveCall> &
DivergenceMemo::performed(const FunctionDecl &FD) {
  const FunctionDecl *Key = FD.getCanonicalDecl();
  auto It = Performs.find(Key);
  if (It != Performs.end())
    return It->second;
  // Recursion: a function being summarised performs nothing more.
  Performs[Key] = std::nullopt;
  std::optional<CollectiveCall> Found;
  const FunctionDecl *Def = FD.getDefinition();
  const SourceManager &SM = Ctx.getSourceManager();
  if (Def && Def->getBody() &&
      !SM.isInSystemHeader(SM.getExpansionLoc(Def->getLocation()))) {
    llvm::SmallVector<const CallExpr *, 16> Calls;
    callsIn(Def->getBody(), Calls);
    for (const CallExpr *Call : Calls)
      if (std::optional<CollectiveCall> C = collective(*Call)) {
        bool Nested = C->Inner || C->InnerElsewhere;
        Found = CollectiveCall{nullptr,
                               isLambdaCallOperator(Def)
                                   ? std::string("lambda")
                                   : FD.getQualifiedNameAsString(),
                               Def,
                               Nested ? C->Inner : C->Call,
                               Nested ? C->InnerName : C->Name,
                               C->InnerElsewhere};
        break;
      }
  } else if (!Def) {
    Found = imported(FD);
  }
  return Performs[Key] = Found;
}

std::optional<CollectiveCall> DivergenceMemo::imported(const FunctionDecl &FD) {
  const SourceManager &SM = Ctx.getSourceManager();
  if (!Database || FD.isDependentContext() || FD.isInvalidDecl() ||
      SM.isInSystemHeader(SM.getExpansionLoc(FD.getLocation())))
    return std::nullopt;
  std::string USR = functionUSR(FD);
  // lookup() gives up-to-date entries only: stale or missing = unknown.
  const StoredSummary *Stored = USR.empty() ? nullptr : Database->lookup(USR);
  if (!Stored || !Stored->Collective)
    return std::nullopt;
  // A collective the model no longer has: unknown, never a finding.
  const std::string &Name = Stored->Collective->Name;
  if (!llvm::is_contained(Index.allCollectiveNames(), llvm::StringRef(Name)))
    return std::nullopt;
  ExternalSites.push_back(
      std::make_unique<ExternalSite>(Stored->Collective->At));
  CollectiveCall C;
  C.Name = FD.getQualifiedNameAsString();
  C.Helper = &FD;
  C.InnerName = Name;
  C.InnerElsewhere = ExternalSites.back().get();
  return C;
}

std::optional<CollectiveCall> DivergenceMemo::collective(const CallExpr &Call) {
  const FunctionDecl *Callee = Call.getDirectCallee();
  if (!Callee)
    return std::nullopt;
  if (isCollectiveCall(Call, Index, Ctx))
    return CollectiveCall{&Call, Callee->getQualifiedNameAsString()};
  if (Index.collectiveKind(Callee) != CollectiveKind::None)
    return std::nullopt; // from_local without run_check
  std::optional<CollectiveCall> Helper = performed(*Callee);
  if (!Helper)
    return std::nullopt;
  Helper->Call = &Call;
  return Helper;
}

std::vector<std::string> DivergenceMemo::sequence(const Stmt *S) {
  llvm::SmallVector<const CallExpr *, 16> Calls;
  callsIn(S, Calls);
  std::vector<std::string> Names;
  for (const CallExpr *Call : Calls)
    if (std::optional<CollectiveCall> C = collective(*Call))
      Names.push_back(C->Name);
  return Names;
}

namespace {

/// An expression Clang recovered from an error (the findings would be void).
bool hasErrors(const Stmt *S) {
  if (!S)
    return false;
  if (const auto *E = dyn_cast<Expr>(S))
    return E->containsErrors();
  return llvm::any_of(S->children(), hasErrors);
}

/// Control dependencies cost a post-dominance frontier per block: implicit
/// flows are followed in functions up to this size only.
constexpr unsigned MaxBlocksForImplicitFlow = 400;

bool isLoop(const Stmt *S) {
  return isa_and_nonnull<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(S);
}

std::string joined(const std::vector<std::string> &Names) {
  if (Names.empty())
    return "none";
  std::string Out;
  for (const std::string &N : Names)
    Out += (Out.empty() ? "" : ", ") + N;
  return Out;
}

/// Every side runs the same collective sequence and none leaves early.
bool balanced(const std::vector<BranchSide> &Sides) {
  return llvm::all_of(Sides, [&](const BranchSide &Side) {
    return !Side.Exits && Side.Sequence == Sides.front().Sequence;
  });
}

/// The sides a message names: an if's then and else; a switch's arm that
/// holds \p Call and the first arm that runs something else.
std::pair<const BranchSide *, const BranchSide *>
compared(const std::vector<BranchSide> &Sides, const CallExpr &Call,
         ASTContext &Ctx) {
  if (Sides.size() == 2)
    return {&Sides[0], &Sides[1]};
  const BranchSide *Here = &Sides.front();
  for (const BranchSide &Side : Sides)
    if (llvm::any_of(Side.Stmts, [&](const Stmt *S) {
          return containsStmt(S, &Call, Ctx);
        }))
      Here = &Side;
  const BranchSide *Other = nullptr;
  for (const BranchSide &Side : Sides)
    if (&Side != Here && (!Other || (Other->Sequence == Here->Sequence &&
                                     Side.Sequence != Here->Sequence)))
      Other = &Side;
  return {Here, Other};
}

} // namespace

DivergenceScan findDivergentCollectives(const FunctionDecl &FD,
                                        DivergenceMemo &Memo,
                                        const ApiIndex &Index,
                                        const AnalysisLimits &Limits) {
  DivergenceScan Scan;
  ASTContext &Ctx = Memo.context();
  if (FD.isInvalidDecl() || hasErrors(FD.getBody())) {
    Scan.Result.Outcome = AnalysisOutcome::HasErrors;
    return Scan;
  }
  CFG::BuildOptions Opts;
  std::unique_ptr<CFG> Cfg = CFG::buildCFG(&FD, FD.getBody(), &Ctx, Opts);
  if (!Cfg) {
    Scan.Result.Outcome = AnalysisOutcome::NoCFG;
    return Scan;
  }
  // Where the collectives are; nothing else to do without one.
  struct Site {
    CFGBlock *Block;
    CollectiveCall Collective;
  };
  std::vector<Site> Sites;
  std::int64_t Elements = 0;
  for (CFGBlock *B : *Cfg)
    for (const CFGElement &E : *B) {
      ++Elements;
      if (std::optional<CFGStmt> S = E.getAs<CFGStmt>())
        if (const auto *Call = dyn_cast<CallExpr>(S->getStmt()))
          if (std::optional<CollectiveCall> C = Memo.collective(*Call))
            Sites.push_back({B, *C});
    }
  if (Elements > Limits.MaxFunctionElements) {
    Scan.Result.Outcome = AnalysisOutcome::TooLarge;
    return Scan;
  }
  if (Sites.empty())
    return Scan;
  // Reported in source order (the CFG lists blocks backwards).
  const SourceManager &SM = Ctx.getSourceManager();
  llvm::stable_sort(Sites, [&](const Site &A, const Site &B) {
    return SM.isBeforeInTranslationUnit(A.Collective.Call->getBeginLoc(),
                                        B.Collective.Call->getBeginLoc());
  });

  ControlDependencyCalculator Deps(Cfg.get());
  // Transitive control dependencies of a block, nearest first.
  llvm::DenseMap<const CFGBlock *, llvm::SmallVector<CFGBlock *, 8>> DepCache;
  auto ControllingBlocks =
      [&](CFGBlock *B) -> const llvm::SmallVector<CFGBlock *, 8> & {
    auto It = DepCache.find(B);
    if (It != DepCache.end())
      return It->second;
    llvm::SmallVector<CFGBlock *, 8> Work(
        Deps.getControlDependencies(B).begin(),
        Deps.getControlDependencies(B).end());
    llvm::SmallPtrSet<CFGBlock *, 16> Seen(Work.begin(), Work.end());
    for (unsigned I = 0; I < Work.size(); ++I)
      for (CFGBlock *Next : Deps.getControlDependencies(Work[I]))
        if (Seen.insert(Next).second)
          Work.push_back(Next);
    return DepCache[B] = std::move(Work);
  };

  // Rank dependence of the locals at the end of each block, to a fixpoint.
  RankDependenceTU &Facts = Memo.rankFacts();
  std::vector<RankVars> Out(Cfg->getNumBlockIDs());
  std::vector<bool> Done(Cfg->getNumBlockIDs(), false);
  // Clang builds the CFG backwards: descending block IDs approximate the
  // program order. (Not a post-order walk: pruned edges such as the back
  // edge of `do ... while (0)` are null successors.)
  std::vector<const CFGBlock *> RPO(Cfg->begin(), Cfg->end());
  llvm::sort(RPO, [](const CFGBlock *A, const CFGBlock *B) {
    return A->getBlockID() > B->getBlockID();
  });
  std::int32_t Visits = 0;
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (const CFGBlock *B : RPO) {
      if (++Visits > Limits.MaxBlockVisits) {
        Scan.Result.Outcome = AnalysisOutcome::BlockVisitLimit;
        return Scan;
      }
      RankVars In;
      if (B == &Cfg->getEntry())
        Facts.seedParameters(FD, In);
      for (const CFGBlock *P : B->preds())
        if (P && Done[P->getBlockID()])
          for (const auto &[V, O] : Out[P->getBlockID()])
            In.try_emplace(V, O);
      // Implicit flow: what a block assigns under a rank-dependent
      // condition is rank-dependent (`if (rank < rem) n += 1;`).
      const Expr *Implicit = nullptr;
      if (Cfg->getNumBlockIDs() <= MaxBlocksForImplicitFlow)
        for (CFGBlock *Dep : ControllingBlocks(const_cast<CFGBlock *>(B)))
          if (Done[Dep->getBlockID()])
            if (const auto *Cond =
                    dyn_cast_or_null<Expr>(Dep->getTerminatorCondition()))
              if ((Implicit = Facts.origin(Cond, Out[Dep->getBlockID()], &FD)))
                break;
      for (const CFGElement &E : *B)
        if (std::optional<CFGStmt> S = E.getAs<CFGStmt>())
          Facts.transfer(S->getStmt(), In, &FD, Implicit);
      unsigned ID = B->getBlockID();
      bool Same = Done[ID] && In.size() == Out[ID].size() &&
                  llvm::all_of(In, [&](const auto &KV) {
                    return Out[ID].count(KV.first);
                  });
      if (!Same) {
        Out[ID] = std::move(In);
        Done[ID] = true;
        Changed = true;
      }
    }
  }

  // The rank-dependent condition ending a block, and where it comes from.
  auto RankCondition = [&](const CFGBlock *B) -> const Expr * {
    const Expr *Cond = dyn_cast_or_null<Expr>(
        const_cast<CFGBlock *>(B)->getTerminatorCondition());
    if (!Cond || !Done[B->getBlockID()])
      return nullptr;
    return Facts.origin(Cond, Out[B->getBlockID()], &FD);
  };

  llvm::DenseSet<const CallExpr *> Reported;
  // A branch whose sides communicate differently is reported once.
  llvm::DenseSet<const Stmt *> Mismatched;
  for (const Site &S : Sites) {
    if (Reported.contains(S.Collective.Call))
      continue;
    for (CFGBlock *Dep : ControllingBlocks(S.Block)) {
      const Expr *Origin = RankCondition(Dep);
      if (!Origin)
        continue;
      const CallExpr *Call = S.Collective.Call;
      const Stmt *Branch =
          branchStatement(Dep->getTerminatorStmt(), *Call, FD, Ctx);
      DivergentCollective D;
      D.Collective = S.Collective;
      D.Branch = Branch;
      D.Condition = dyn_cast_or_null<Expr>(Dep->getTerminatorCondition());
      D.RankOrigin = Origin;
      if (!containsStmt(Branch, Call, Ctx)) {
        D.Shape = DivergenceShape::AfterEarlyExit;
        D.Exit = firstExit(Branch);
      } else if (isLoop(Branch)) {
        D.Shape = DivergenceShape::LoopTripCount;
      } else {
        D.Shape = DivergenceShape::InBranch;
        if (std::optional<std::vector<BranchSide>> Sides =
                branchSides(Branch, Memo)) {
          // Every side communicates alike: every rank makes the same calls.
          if (balanced(*Sides))
            continue;
          auto [Here, Other] = compared(*Sides, *Call, Ctx);
          if (Other && !Here->Sequence.empty() && !Other->Sequence.empty()) {
            if (!Mismatched.insert(Branch).second)
              break;
            D.Shape = DivergenceShape::DifferentSequences;
            D.ThenSequence = joined(Here->Sequence);
            D.ElseSequence = joined(Other->Sequence);
          }
        }
      }
      Reported.insert(Call);
      Scan.Sites.push_back(std::move(D));
      break;
    }
  }
  return Scan;
}

} // namespace analysis
} // namespace meshguard
