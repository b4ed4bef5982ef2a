//===--- ProvenanceModel.cpp - DTensor-or-plain, as a dataflow model ------===//
//
// The model class and its transfer switch. The transfer functions live in
// files by subject: TensorTransfer.cpp, ContainerTransfer.cpp,
// ModuleTransfer.cpp, UnknownCallTransfer.cpp (see TransferContext.h).
//
//===----------------------------------------------------------------------===//

#include "Provenance/ProvenanceModel.h"
#include "Provenance/DeadValues.h"
#include "Provenance/TransferContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/ASTMatchers/ASTMatchers.h"

using namespace clang;
using namespace clang::ast_matchers;
using namespace clang::dataflow;

namespace meshguard {
namespace analysis {

namespace {

using State = TransferState<NoopLattice>;

AST_MATCHER_P2(CallExpr, passesCallTest, CallTest, Test, const ApiIndex *,
               Index) {
  return Test(Node, *Index);
}
AST_MATCHER_P2(CXXConstructExpr, passesConstructTest, ConstructTest, Test,
               const ApiIndex *, Index) {
  return Test(Node, *Index);
}

/// Variables declared: a range-for's loop variable may write its container;
/// a mutable reference or pointer to a module is an alias the model does not
/// follow.
void transferDeclarations(const DeclStmt &DS, TransferContext &C) {
  for (const Decl *D : DS.decls()) {
    const auto *VD = dyn_cast<VarDecl>(D);
    if (!VD)
      continue;
    if (VD->isCXXForRangeDecl())
      transferRangeForVariable(*VD, C);
    else
      transferModuleAlias(*VD, C);
  }
}

} // namespace

/// One case per construct, first match wins: the order is the precedence.
/// A new kind of API call is one test and one transfer function in the file
/// of its subject, and one line here.
static CFGMatchSwitch<State>
buildTransferSwitch(const ApiIndex &Index, OriginTable &Origins,
                    CalleeSummaries *Summaries,
                    LoopVariableWrites &LoopWrites) {
  const ApiIndex *Idx = &Index;
  auto Context = [Idx, Origins = &Origins, Summaries,
                  Loops = &LoopWrites](Environment &Env) {
    return TransferContext{*Idx, *Origins, Env, Env.arena(), Summaries, Loops};
  };
  auto Call = [&](CallTest Test) {
    return callExpr(passesCallTest(Test, Idx));
  };
  auto OnCall = [Context](CallTransfer Transfer) {
    return [Context, Transfer](const CallExpr *E,
                               const MatchFinder::MatchResult &, State &S) {
      TransferContext C = Context(S.Env);
      Transfer(*E, C);
    };
  };
  auto Construct = [&](ConstructTest Test) {
    return cxxConstructExpr(passesConstructTest(Test, Idx));
  };
  auto OnConstruct = [Context](ConstructTransfer Transfer) {
    return [Context, Transfer](const CXXConstructExpr *E,
                               const MatchFinder::MatchResult &, State &S) {
      TransferContext C = Context(S.Env);
      Transfer(*E, C);
    };
  };

  return CFGMatchSwitchBuilder<State>()
      // Calls.
      .CaseOfCFGStmt<CallExpr>(Call(hasNoDirectCallee),
                               OnCall(transferUnknownCall))
      .CaseOfCFGStmt<CallExpr>(Call(isModuleAssignment),
                               OnCall(transferModuleAssignment))
      .CaseOfCFGStmt<CallExpr>(Call(isFrameworkCopy), OnCall(transferNothing))
      .CaseOfCFGStmt<CallExpr>(Call(isDistributeModuleCall),
                               OnCall(transferDistributeModule))
      .CaseOfCFGStmt<CallExpr>(Call(isDTensorTestCall),
                               OnCall(transferDTensorTest))
      .CaseOfCFGStmt<CallExpr>(Call(isModuleParametersCall),
                               OnCall(transferModuleParameters))
      .CaseOfCFGStmt<CallExpr>(Call(isMakeSharedModule),
                               OnCall(transferMakeSharedModule))
      .CaseOfCFGStmt<CallExpr>(Call(isSourceCall), OnCall(transferSource))
      .CaseOfCFGStmt<CallExpr>(Call(isContainerAssignment),
                               OnCall(transferContainerAssignment))
      .CaseOfCFGStmt<CallExpr>(Call(isContainerMethodCall),
                               OnCall(transferContainerMethod))
      .CaseOfCFGStmt<CallExpr>(Call(isEntryAccess), OnCall(transferEntryAccess))
      .CaseOfCFGStmt<CallExpr>(Call(isTensorMethodOp), OnCall(transferTensorOp))
      .CaseOfCFGStmt<CallExpr>(Call(isElementDereference),
                               OnCall(transferElementDereference))
      .CaseOfCFGStmt<CallExpr>(Call(isOpFunctionCall), OnCall(transferTensorOp))
      .CaseOfCFGStmt<CallExpr>(Call(isCollectiveCall), OnCall(transferNothing))
      .CaseOfCFGStmt<CallExpr>(callExpr(), OnCall(transferUnknownCall))
      // A range-for over a pointer iterator: `*__begin`.
      .CaseOfCFGStmt<UnaryOperator>(unaryOperator(hasOperatorName("*")),
                                    [Context](const UnaryOperator *Deref,
                                              const MatchFinder::MatchResult &,
                                              State &S) {
                                      TransferContext C = Context(S.Env);
                                      transferElementDereference(*Deref, C);
                                    })
      .CaseOfCFGStmt<DeclStmt>(declStmt(),
                               [Context](const DeclStmt *DS,
                                         const MatchFinder::MatchResult &,
                                         State &S) {
                                 TransferContext C = Context(S.Env);
                                 transferDeclarations(*DS, C);
                               })
      // Constructions (copies and moves are the framework's).
      .CaseOfCFGStmt<CXXConstructExpr>(Construct(isModuleConstruction),
                                       OnConstruct(transferModuleConstruction))
      .CaseOfCFGStmt<CXXConstructExpr>(
          Construct(isContainerConstruction),
          OnConstruct(transferContainerConstruction))
      .Build();
}

ProvenanceModel::ProvenanceModel(ASTContext &Ctx, Environment &Env,
                                 const ApiIndex &Index, OriginTable &Origins,
                                 CalleeSummaries *Summaries)
    : DataflowAnalysis<ProvenanceModel, NoopLattice>(Ctx) {
  Env.getDataflowAnalysisContext().setSyntheticFieldCallback([&Index, &Ctx](
                                                                 QualType T) {
    // An OrderedDict item carries the provenance of its tensor.
    return syntheticFieldsFor(
        Index.isTensorEntryType(T) ? Index.entryTensorType(T) : T, Index, Ctx);
  });
  TransferSwitch = buildTransferSwitch(Index, Origins, Summaries, *LoopWrites);
}

void ProvenanceModel::transfer(const CFGElement &Elt, NoopLattice &L,
                               Environment &Env) {
  const Stmt *Current = nullptr;
  if (auto S = Elt.getAs<CFGStmt>())
    Current = S->getStmt();
  if (!FirstStmt)
    FirstStmt = Current;
  if (EntryRefinement && Current && Current == FirstStmt)
    EntryRefinement(Env);
  if (EntryHook) {
    EntryHook(Env);
    EntryHook = nullptr;
  }
  State S(L, Env);
  TransferSwitch(Elt, getASTContext(), S);
  if (Dead)
    Dead->releaseAfter(Elt, Env);
}

} // namespace analysis
} // namespace meshguard
