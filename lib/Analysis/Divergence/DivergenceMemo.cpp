//===--- DivergenceMemo.cpp - The helpers' collectives, once per TU -------===//
//
// DivergenceMemo: which collective a function performs (through its
// helpers, and from the summary database for functions of other files), the
// collective sequence a statement runs, and which parameter of a helper
// decides whether its collective runs (the finding then goes at the call
// passing a rank-dependent value).
//
//===----------------------------------------------------------------------===//

#include "Divergence/BranchSides.h"
#include "Divergence/RankDependence.h"
#include "Divergence/RankFlow.h"
#include "meshguard/Analysis/Divergence/DivergentCollectives.h"
#include "meshguard/Analysis/Summaries/SummaryDatabase.h"
#include "clang/AST/ASTLambda.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Basic/SourceManager.h"

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

} // namespace analysis
} // namespace meshguard
