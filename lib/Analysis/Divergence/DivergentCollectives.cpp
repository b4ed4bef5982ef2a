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

#include "meshguard/Analysis/Divergence/DivergentCollectives.h"
#include "Divergence/BranchSides.h"
#include "Divergence/MeshGroups.h"
#include "Divergence/RankDependence.h"
#include "Divergence/RankFlow.h"
#include "meshguard/Analysis/Summaries/SummaryDatabase.h"
#include "clang/AST/ASTLambda.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Analysis/Analyses/Dominators.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace clang;

namespace meshguard {
namespace analysis {

bool isCollectiveCall(const CallExpr &Call, const ApiIndex &Index,
                      ASTContext &Ctx) {
  const FunctionDecl *Callee = Call.getDirectCallee();
  CollectiveKind Kind = Index.collectiveKind(Callee);
  if (Kind == CollectiveKind::None || Index.isPointToPoint(Callee))
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

DivergenceMemo::DivergenceMemo(ASTContext &Ctx, const ApiIndex &Index,
                               AnalysisLimits Limits)
    : Ctx(Ctx), Index(Index), Limits(Limits) {}

DivergenceMemo::~DivergenceMemo() = default;

RankDependenceTU &DivergenceMemo::rankFacts() {
  if (!Facts)
    Facts = std::make_unique<RankDependenceTU>(Ctx, Index);
  return *Facts;
}

void callsIn(const Stmt *S, llvm::SmallVectorImpl<const CallExpr *> &Out) {
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
  const StoredSummary *Stored = lookupCallee(Database, FD, Index);
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

std::vector<ParameterControl>
DivergenceMemo::importedControls(const FunctionDecl &FD) {
  const std::optional<CollectiveCall> &C = performed(FD);
  if (!C || !C->InnerElsewhere)
    return {};
  const StoredSummary *Stored = Database->lookup(functionUSR(FD));
  if (!Stored || !Stored->Collective || !Stored->Collective->Param ||
      *Stored->Collective->Param >= FD.getNumParams())
    return {};
  ExternalSites.push_back(
      std::make_unique<ExternalSite>(Stored->Collective->ControlledAt));
  CollectiveCall Controlled = *C;
  Controlled.Call = nullptr;
  Controlled.InnerElsewhere = ExternalSites.back().get();
  return {ParameterControl{*Stored->Collective->Param, nullptr,
                           std::move(Controlled)}};
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
    return !Side.Exits && Side.Keys == Sides.front().Keys;
  });
}

/// Whether the branch ending \p Dep runs the same collectives on every side
/// around \p Call (which then runs on every rank alike).
bool balancedAround(CFGBlock *Dep, const CallExpr &Call, const FunctionDecl &FD,
                    DivergenceMemo &Memo) {
  const Stmt *Branch =
      branchStatement(Dep->getTerminatorStmt(), Call, FD, Memo.context());
  if (!containsStmt(Branch, &Call, Memo.context()) || isLoop(Branch))
    return false;
  std::optional<std::vector<BranchSide>> Sides = branchSides(Branch, Memo);
  return Sides && balanced(*Sides);
}

/// The sides a message names: the side that holds \p Call (an if's then or
/// else, a switch's arm) and the other side, or for a switch the first arm
/// that runs something else.
std::pair<const BranchSide *, const BranchSide *>
compared(const std::vector<BranchSide> &Sides, const CallExpr &Call,
         ASTContext &Ctx) {
  const BranchSide *Here = &Sides.front();
  for (const BranchSide &Side : Sides)
    if (llvm::any_of(Side.Stmts, [&](const Stmt *S) {
          return containsStmt(S, &Call, Ctx);
        }))
      Here = &Side;
  if (Sides.size() == 2)
    return {Here, Here == &Sides[0] ? &Sides[1] : &Sides[0]};
  const BranchSide *Other = nullptr;
  for (const BranchSide &Side : Sides)
    if (&Side != Here &&
        (!Other || (Other->Keys == Here->Keys && Side.Keys != Here->Keys)))
      Other = &Side;
  return {Here, Other};
}

} // namespace

const Expr *DivergenceMemo::argumentFor(const CallExpr &Call,
                                        const ParameterControl &Control) {
  // A lambda's or functor's operator() has the object as argument 0.
  unsigned Shift = 0;
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(&Call))
    if (isa_and_nonnull<CXXMethodDecl>(Op->getDirectCallee()))
      Shift = 1;
  unsigned I = Control.Param + Shift;
  if (I >= Call.getNumArgs() || isa<CXXDefaultArgExpr>(Call.getArg(I)))
    return nullptr;
  return Call.getArg(I);
}

std::unique_ptr<MarkedRankFlow>
DivergenceMemo::markedFlow(const FunctionDecl &Def) {
  const SourceManager &SM = Ctx.getSourceManager();
  if (!Def.getBody() || Def.param_empty() ||
      SM.isInSystemHeader(SM.getExpansionLoc(Def.getLocation())))
    return nullptr;
  auto M = std::make_unique<MarkedRankFlow>();
  AnalysisOutcome Outcome = AnalysisOutcome::Done;
  M->Cfg = buildAdmittedCFG(Def, Ctx, Limits, Outcome);
  if (!M->Cfg)
    return nullptr;
  // Each parameter stands for a value of its own.
  for (unsigned I = 0; I < Def.getNumParams(); ++I) {
    auto *P = const_cast<ParmVarDecl *>(Def.getParamDecl(I));
    const Expr *Mark = DeclRefExpr::Create(
        Ctx, NestedNameSpecifierLoc(), SourceLocation(), P, false,
        P->getLocation(), P->getType().getNonReferenceType(), VK_LValue);
    ParameterMarks[Mark] = I;
    M->Marks.push_back(Mark);
  }
  M->Flow = std::make_unique<RankFlow>(Def, *M->Cfg, rankFacts(), M->Marks);
  if (!M->Flow->solve(Limits))
    return nullptr;
  return M;
}

std::optional<unsigned>
DivergenceMemo::markedParameter(const Expr *Origin) const {
  auto It = ParameterMarks.find(Origin);
  if (It == ParameterMarks.end())
    return std::nullopt;
  return It->second;
}

llvm::ArrayRef<ParameterControl>
DivergenceMemo::parameterControls(const FunctionDecl &FD) {
  return memoized(Controls, FD, [&] { return computeControls(FD); });
}

std::vector<ParameterControl>
DivergenceMemo::computeControls(const FunctionDecl &FD) {
  // The model's own functions (a collective, a rank accessor) are no
  // helpers: nothing to look up.
  if (Index.collectiveKind(&FD) != CollectiveKind::None ||
      Index.isRankSource(&FD))
    return {};
  const FunctionDecl *Def = FD.getDefinition();
  if (!Def)
    return importedControls(FD);
  if (!performed(*Def))
    return {};
  std::unique_ptr<MarkedRankFlow> Marked = markedFlow(*Def);
  if (!Marked)
    return {};
  RankFlow &Flow = *Marked->Flow;
  std::vector<ParameterControl> Found;
  auto Add = [&](unsigned Param, const Expr *Condition, CollectiveCall C) {
    if (llvm::none_of(
            Found, [&](const ParameterControl &P) { return P.Param == Param; }))
      Found.push_back(ParameterControl{Param, Condition, std::move(C)});
  };
  forEachCall(*Marked->Cfg, [&](CFGBlock *B, const CallExpr &Call) {
    std::optional<CollectiveCall> C = collective(Call);
    if (!C)
      return;
    // Under a condition on a parameter (a rank-dependent one is a finding
    // of its own, reported in this function).
    for (CFGBlock *Dep : Flow.controllingBlocks(B))
      if (const Expr *O = Flow.conditionOrigin(Dep)) {
        if (balancedAround(Dep, Call, *Def, *this))
          continue;
        if (std::optional<unsigned> Param = markedParameter(O))
          Add(*Param, dyn_cast_or_null<Expr>(Dep->getTerminatorCondition()),
              *C);
        return;
      }
    // Passing a parameter on to a helper that one of its own decides.
    const FunctionDecl *Callee = Call.getDirectCallee();
    if (!Callee)
      return;
    for (const ParameterControl &Inner : parameterControls(*Callee)) {
      const Expr *Arg = argumentFor(Call, Inner);
      if (!Arg)
        continue;
      if (std::optional<unsigned> Param =
              markedParameter(Flow.originBefore(Arg, B, &Call)))
        Add(*Param, Arg,
            CollectiveCall{&Call, Callee->getQualifiedNameAsString(), Callee,
                           Inner.Collective.Call,
                           Inner.Collective.Helper ? Inner.Collective.InnerName
                                                   : Inner.Collective.Name});
    }
  });
  return Found;
}

namespace {

/// A collective of the function, or a call of a helper whose collective a
/// parameter decides.
struct DivergenceSite {
  CFGBlock *Block;
  CollectiveCall Collective;
  llvm::ArrayRef<ParameterControl> Controls;
};

/// The local variable holding the process group a raw collective runs on
/// (`sub->allreduce(...)`, `pg.barrier()`), if any.
const VarDecl *groupVariable(const CallExpr &Call, const FunctionDecl &FD) {
  const auto *MC = dyn_cast<CXXMemberCallExpr>(&Call);
  const Expr *Object = MC ? MC->getImplicitObjectArgument() : nullptr;
  while (Object) {
    Object = Object->IgnoreParenImpCasts();
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Object);
        Op && Op->getNumArgs() >= 1 &&
        (Op->getOperator() == OO_Arrow || Op->getOperator() == OO_Star))
      Object = Op->getArg(0);
    else if (const auto *Deref = dyn_cast<UnaryOperator>(Object);
             Deref && Deref->getOpcode() == UO_Deref)
      Object = Deref->getSubExpr();
    else
      break;
  }
  const auto *DRE = dyn_cast_or_null<DeclRefExpr>(Object);
  const auto *V = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
  if (!V || !V->isLocalVarDecl() || V->isStaticLocal() ||
      V->getParentFunctionOrMethod() != &FD)
    return nullptr;
  return V;
}

bool refersTo(const Stmt *S, const VarDecl *V) {
  if (!S)
    return false;
  if (const auto *DRE = dyn_cast<DeclRefExpr>(S); DRE && DRE->getDecl() == V)
    return true;
  return llvm::any_of(S->children(),
                      [&](const Stmt *C) { return refersTo(C, V); });
}

/// Whether \p V is initialised with a group of its own (a constructor,
/// `make_intrusive`, `splitGroup`), not a copy of another variable's.
bool makesNewGroup(const VarDecl *V) {
  const Expr *Init = V->getInit();
  while (Init) {
    Init = Init->IgnoreImplicit()->IgnoreParens();
    const auto *Construct = dyn_cast<CXXConstructExpr>(Init);
    if (!Construct || Construct->getNumArgs() != 1 ||
        !Construct->getConstructor()->isCopyOrMoveConstructor())
      break;
    Init = Construct->getArg(0);
  }
  return isa_and_nonnull<CallExpr, CXXConstructExpr, CXXNewExpr>(Init);
}

/// The call that built \p V for a list of ranks (`world->splitGroup(ranks)`,
/// `new_group(ranks)`), through copies; null for any other initialiser.
const CallExpr *membershipInit(const VarDecl *V) {
  const Expr *Init = V->getInit();
  while (Init) {
    Init = Init->IgnoreImplicit()->IgnoreParens();
    const auto *Construct = dyn_cast<CXXConstructExpr>(Init);
    if (!Construct || Construct->getNumArgs() != 1)
      break;
    Init = Construct->getArg(0);
  }
  const auto *Call = dyn_cast_or_null<CallExpr>(Init);
  const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
  const IdentifierInfo *Id = Callee ? Callee->getIdentifier() : nullptr;
  if (!Id || Call->getNumArgs() == 0 ||
      !llvm::is_contained({"splitGroup", "split_group", "new_group"},
                          Id->getName()))
    return nullptr;
  return Call;
}

/// Whether \p Cond reads as a membership test of the ranks \p Split was
/// given: it names that list (`std::find(ranks...)`), or it bounds the
/// rank (`rank >= n`: the first n ranks, the usual way to pick members).
bool testsMembership(const Stmt *Terminator, const CallExpr &Split) {
  const auto *Cond = dyn_cast_or_null<Expr>(Terminator);
  if (!Cond)
    return false;
  Cond = Cond->IgnoreParenImpCasts();
  if (const auto *Not = dyn_cast<UnaryOperator>(Cond);
      Not && Not->getOpcode() == UO_LNot)
    Cond = Not->getSubExpr()->IgnoreParenImpCasts();
  if (const auto *Cmp = dyn_cast<BinaryOperator>(Cond);
      Cmp && Cmp->isRelationalOp())
    return true;
  const auto *List = dyn_cast<DeclRefExpr>(Split.getArg(0)->IgnoreImplicit());
  const auto *ListVar = List ? dyn_cast<VarDecl>(List->getDecl()) : nullptr;
  return ListVar && refersTo(Cond, ListVar);
}

/// Subgroup membership: the ranks outside a subgroup hold no handle to it
/// (`if (!sub) return;`, or they leave before the members build it), so
/// the branch on membership lets exactly the subgroup's members reach a
/// collective on that subgroup, together.
bool membersTogether(CFGBlock *Dep, const CallExpr &Call,
                     const FunctionDecl &FD, RankFlow &Flow) {
  const VarDecl *Group = groupVariable(Call, FD);
  if (!Group)
    return false;
  // The branch tests the group itself (null on non-members).
  if (refersTo(Dep->getTerminatorCondition(), Group))
    return true;
  // Built for a list of ranks, and the branch tests membership of it by
  // the rank (non-members hold null and must not call the collective).
  if (const CallExpr *Split = membershipInit(Group);
      Split && testsMembership(Dep->getTerminatorCondition(), *Split))
    return true;
  // Only the ranks that pass the branch build the group.
  if (!makesNewGroup(Group))
    return false;
  CFGBlock *Declared = Flow.blockDeclaring(Group);
  return Declared && llvm::is_contained(Flow.controllingBlocks(Declared), Dep);
}

/// \p E's source text without blanks, or empty inside a macro.
std::string compactText(const Expr *E, ASTContext &Ctx) {
  CharSourceRange R = CharSourceRange::getTokenRange(E->getSourceRange());
  if (E->getBeginLoc().isMacroID() || E->getEndLoc().isMacroID())
    return "";
  std::string Out;
  for (char C :
       Lexer::getSourceText(R, Ctx.getSourceManager(), Ctx.getLangOpts()))
    if (!isspace(static_cast<unsigned char>(C)))
      Out += C;
  return Out;
}

/// Whether exactly one of \p A and \p B holds on every rank: `!c` and `c`,
/// `x == k` and `x != k`, `x < k` and `x >= k`, `x > k` and `x <= k`, and
/// `x % 2 == 0` and `x % 2 == 1` (PARCOACH's not_verifiable.c).
bool complementary(const Expr *A, const Expr *B, ASTContext &Ctx) {
  A = A->IgnoreParenImpCasts();
  B = B->IgnoreParenImpCasts();
  for (int Swap = 0; Swap < 2; ++Swap, std::swap(A, B))
    if (const auto *Not = dyn_cast<UnaryOperator>(A);
        Not && Not->getOpcode() == UO_LNot) {
      std::string Inner = compactText(Not->getSubExpr()->IgnoreParens(), Ctx);
      if (!Inner.empty() && Inner == compactText(B, Ctx))
        return true;
    }
  const auto *BA = dyn_cast<BinaryOperator>(A);
  const auto *BB = dyn_cast<BinaryOperator>(B);
  if (!BA || !BB || !BA->isComparisonOp() || !BB->isComparisonOp())
    return false;
  std::string X = compactText(BA->getLHS(), Ctx);
  std::optional<llvm::APSInt> KA = BA->getRHS()->getIntegerConstantExpr(Ctx);
  std::optional<llvm::APSInt> KB = BB->getRHS()->getIntegerConstantExpr(Ctx);
  if (X.empty() || X != compactText(BB->getLHS(), Ctx) || !KA || !KB)
    return false;
  BinaryOperatorKind OA = BA->getOpcode(), OB = BB->getOpcode();
  if (llvm::APSInt::isSameValue(*KA, *KB) &&
      (OB == BinaryOperator::negateComparisonOp(OA)))
    return true;
  // x % 2 == 0 and x % 2 == 1, for a non-negative x (a rank).
  const auto *Mod =
      dyn_cast<BinaryOperator>(BA->getLHS()->IgnoreParenImpCasts());
  std::optional<llvm::APSInt> Two =
      Mod && Mod->getOpcode() == BO_Rem
          ? Mod->getRHS()->getIntegerConstantExpr(Ctx)
          : std::nullopt;
  return Two && *Two == 2 && OA == BO_EQ && OB == BO_EQ &&
         ((*KA == 0 && *KB == 1) || (*KA == 1 && *KB == 0));
}

/// `if (rank % 2 == 1) barrier(); if (rank % 2 == 0) barrier();`: two
/// adjacent `if`s without `else` on complementary conditions whose bodies
/// communicate alike. Every rank runs exactly one of them, the same calls.
bool complementedNextTo(const Stmt *Branch, DivergenceMemo &Memo) {
  ASTContext &Ctx = Memo.context();
  const auto *If = dyn_cast_or_null<IfStmt>(Branch);
  auto Plain = [](const IfStmt *I) {
    return I && !I->getElse() && !I->getInit() && !I->getConditionVariable() &&
           !I->isConstexpr();
  };
  if (!Plain(If))
    return false;
  DynTypedNodeList Parents = Ctx.getParents(*If);
  const auto *Block =
      Parents.size() == 1 ? Parents[0].get<CompoundStmt>() : nullptr;
  if (!Block)
    return false;
  std::optional<std::vector<BranchSide>> Mine = branchSides(If, Memo);
  if (!Mine || Mine->empty() || (*Mine)[0].Exits)
    return false;
  const Stmt *const *Begin = Block->body_begin(), *const *End =
                                                      Block->body_end();
  for (const Stmt *const *It = Begin; It != End; ++It) {
    if (*It != If)
      continue;
    for (const Stmt *const *Next : {It - 1, It + 1}) {
      if (Next < Begin || Next >= End)
        continue;
      const auto *Other = dyn_cast<IfStmt>(*Next);
      if (!Plain(Other) || !complementary(If->getCond(), Other->getCond(), Ctx))
        continue;
      std::optional<std::vector<BranchSide>> Theirs = branchSides(Other, Memo);
      if (Theirs && !Theirs->empty() && !(*Theirs)[0].Exits &&
          (*Theirs)[0].Keys == (*Mine)[0].Keys)
        return true;
    }
  }
  return false;
}

/// Where a collective is divergent: the nearest branch on a rank-dependent
/// value that decides whether it runs (a side, a loop, an early exit),
/// unless every side of it communicates alike. A branch whose sides run
/// different collectives is reported at each collective of each side, where
/// the user looks for it.
std::optional<DivergentCollective> atControllingBranch(const DivergenceSite &S,
                                                       RankFlow &Flow,
                                                       DivergenceMemo &Memo,
                                                       const FunctionDecl &FD) {
  ASTContext &Ctx = Memo.context();
  const CallExpr *Call = S.Collective.Call;
  for (CFGBlock *Dep : Flow.controllingBlocks(S.Block)) {
    const Expr *Origin = Flow.conditionOrigin(Dep);
    if (Origin && sameForEveryMember(Origin, *Call, Ctx))
      Origin = Flow.conditionOriginBesides(Dep, Origin);
    if (!Origin || membersTogether(Dep, *Call, FD, Flow))
      continue;
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
        if (balanced(*Sides) || complementedNextTo(Branch, Memo))
          continue;
        auto [Here, Other] = compared(*Sides, *Call, Ctx);
        if (Other && !Here->Sequence.empty() && !Other->Sequence.empty()) {
          D.Shape = DivergenceShape::DifferentSequences;
          D.ThenSequence = joined(Here->Sequence);
          D.ElseSequence = joined(Other->Sequence);
          if (D.ThenSequence == D.ElseSequence) {
            // Same names: the groups, loops or order of nested sides differ.
            D.ThenSequence = joined(Here->Keys);
            D.ElseSequence = joined(Other->Keys);
          }
        }
      }
    }
    return D;
  }
  return std::nullopt;
}

/// Every rank calls the helper \p S calls; a rank-dependent argument decides
/// whether one of its collectives runs.
std::optional<DivergentCollective> atDecidingArgument(const DivergenceSite &S,
                                                      RankFlow &Flow) {
  const CallExpr *Call = S.Collective.Call;
  for (const ParameterControl &Control : S.Controls) {
    const Expr *Arg = DivergenceMemo::argumentFor(*Call, Control);
    const Expr *Origin = Arg ? Flow.originBefore(Arg, S.Block, Call) : nullptr;
    if (!Origin)
      continue;
    DivergentCollective D;
    D.Shape = DivergenceShape::RankDependentArgument;
    D.Collective = S.Collective;
    const CollectiveCall &Inside = Control.Collective;
    D.Collective.Inner = Inside.Call;
    D.Collective.InnerName = Inside.Helper ? Inside.InnerName : Inside.Name;
    D.Collective.InnerElsewhere = Inside.Call ? nullptr : Inside.InnerElsewhere;
    D.RankOrigin = Origin;
    D.Argument = Arg;
    const FunctionDecl *Helper = S.Collective.Helper;
    if (const FunctionDecl *Def = Helper->getDefinition())
      Helper = Def;
    D.Param = Helper->getParamDecl(Control.Param);
    D.ParamCondition = Control.Condition;
    return D;
  }
  return std::nullopt;
}

} // namespace

DivergenceScan findDivergentCollectives(const FunctionDecl &FD,
                                        DivergenceMemo &Memo,
                                        const ApiIndex &Index,
                                        const AnalysisLimits &Limits) {
  DivergenceScan Scan;
  ASTContext &Ctx = Memo.context();
  std::unique_ptr<CFG> Cfg =
      buildAdmittedCFG(FD, Ctx, Limits, Scan.Result.Outcome);
  if (!Cfg)
    return Scan;
  // Where the collectives are, and the calls of helpers whose collective
  // a parameter decides; nothing else to do without one.
  std::vector<DivergenceSite> Sites;
  forEachCall(*Cfg, [&](CFGBlock *B, const CallExpr &Call) {
    if (std::optional<CollectiveCall> C = Memo.collective(Call))
      Sites.push_back({B, *C,
                       C->Helper ? Memo.parameterControls(*C->Helper)
                                 : llvm::ArrayRef<ParameterControl>()});
  });
  if (Sites.empty())
    return Scan;
  // Reported in source order (the CFG lists blocks backwards).
  const SourceManager &SM = Ctx.getSourceManager();
  llvm::stable_sort(
      Sites, [&](const DivergenceSite &A, const DivergenceSite &B) {
        return SM.isBeforeInTranslationUnit(A.Collective.Call->getBeginLoc(),
                                            B.Collective.Call->getBeginLoc());
      });

  // Parameters start uniform: a rank-dependent argument is reported at
  // its call.
  RankFlow Flow(FD, *Cfg, Memo.rankFacts(), {});
  if (!Flow.solve(Limits)) {
    Scan.Result.Outcome = AnalysisOutcome::BlockVisitLimit;
    return Scan;
  }

  llvm::DenseSet<const CallExpr *> Reported;
  for (const DivergenceSite &S : Sites) {
    const CallExpr *Call = S.Collective.Call;
    if (Reported.contains(Call))
      continue;
    std::optional<DivergentCollective> D =
        atControllingBranch(S, Flow, Memo, FD);
    if (!D)
      D = atDecidingArgument(S, Flow);
    if (D)
      Reported.insert(Call);
    if (D)
      Scan.Sites.push_back(std::move(*D));
  }
  return Scan;
}

} // namespace analysis
} // namespace meshguard
