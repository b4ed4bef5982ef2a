//===--- ModelTesting.cpp - Run the provenance model on a snippet ---------===//

#include "ModelTesting.h"
#include "meshguard/Analysis/Provenance/Provenance.h"
#include "meshguard/Analysis/Summaries/Summaries.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Analysis/FlowSensitive/Value.h"
#include "clang/Tooling/Tooling.h"
#include "gtest/gtest.h"

using namespace clang;
using namespace clang::dataflow;

namespace meshguard {
namespace analysis {
namespace testing {

static const char Prelude[] = R"cc(
#include <meshguard/meshguard.h>
#include <torch/torch.h>
void point(const char *Name);
)cc";

std::string PointFacts::at(const std::string &Point,
                           const std::string &Var) const {
  auto P = Facts.find(Point);
  if (P == Facts.end())
    return "<point not reached>";
  auto V = P->second.find(Var);
  if (V == P->second.end())
    return "<no variable '" + Var + "'>";
  return V->second;
}

std::unique_ptr<ASTUnit> parseSnippet(const std::string &Code) {
  std::vector<std::string> Args = {
      "-std=c++17",         "-fsyntax-only", "-isystem",
      MESHGUARD_TEST_STUBS, "-resource-dir", MESHGUARD_CLANG_RESOURCE_DIR};
  std::unique_ptr<ASTUnit> AST = tooling::buildASTFromCodeWithArgs(
      std::string(Prelude) + Code, Args, "snippet.cpp");
  EXPECT_TRUE(AST);
  if (AST)
    EXPECT_FALSE(AST->getDiagnostics().hasErrorOccurred())
        << "the snippet does not compile";
  return AST;
}

namespace {
/// Every function (and lambda call operator) and variable by name.
struct Names : RecursiveASTVisitor<Names> {
  bool shouldVisitImplicitCode() const { return true; }
  bool shouldVisitLambdaBody() const { return true; }
  bool VisitFunctionDecl(FunctionDecl *FD) {
    Functions.emplace(FD->getQualifiedNameAsString(), FD);
    return true;
  }
  bool VisitVarDecl(VarDecl *VD) {
    // `auto target = [..](..) {..};`: the call operator is the function.
    if (const auto *L = dyn_cast_or_null<LambdaExpr>(
            VD->getInit() ? VD->getInit()->IgnoreImplicit() : nullptr))
      Lambdas.emplace(VD->getName().str(), L);
    return true;
  }
  std::multimap<std::string, FunctionDecl *> Functions;
  std::multimap<std::string, const LambdaExpr *> Lambdas;
};

std::string describeProvenance(Provenance P) {
  switch (P) {
  case Provenance::Unknown:
    return "unknown";
  case Provenance::DTensor:
    return "dtensor";
  case Provenance::Plain:
    return "plain";
  case Provenance::MaybePlain:
    return "maybe-plain";
  case Provenance::MaybeDTensor:
    return "maybe-dtensor";
  }
  return "?";
}

/// The fact about \p VD in \p Env (see PointFacts::Facts).
std::string factOf(const VarDecl &VD, const Environment &Env,
                   const ApiIndex &Index) {
  QualType T = VD.getType();
  if (T.getNonReferenceType()->isBooleanType()) {
    auto *B = dyn_cast_or_null<BoolValue>(Env.getValue(VD));
    if (!B)
      return "none";
    if (surely(B->formula(), Env))
      return "true";
    if (surely(Env.arena().makeNot(B->formula()), Env))
      return "false";
    return "unknown";
  }
  auto *L = dyn_cast_or_null<RecordStorageLocation>(Env.getStorageLocation(VD));
  if (!L)
    return "none";
  if (Index.isTensorType(T) || Index.isTensorEntryType(T))
    return describeProvenance(classify(readTensor(*L, Env, nullptr), Env));
  if (Index.isTensorContainerType(T))
    return describeProvenance(classify(readContainer(*L, Env), Env));
  if (Index.isModuleType(T))
    return describeProvenance(classify(readModule(*L, Env), Env));
  return "<not a modelled type>";
}

/// The string literal a `point("name")` call names, or empty.
std::string pointName(const CallExpr &Call) {
  const FunctionDecl *FD = Call.getDirectCallee();
  if (!FD || FD->getQualifiedNameAsString() != "point" ||
      Call.getNumArgs() != 1)
    return "";
  if (const auto *S =
          dyn_cast<StringLiteral>(Call.getArg(0)->IgnoreParenImpCasts()))
    return S->getString().str();
  return "";
}
} // namespace

const FunctionDecl *findFunction(ASTContext &Ctx,
                                 const std::string &QualifiedName) {
  Names N;
  N.TraverseDecl(Ctx.getTranslationUnitDecl());
  auto It = N.Functions.find(QualifiedName);
  return It == N.Functions.end() ? nullptr : It->second;
}

PointFacts analyseTarget(const std::string &Code) {
  PointFacts Out;
  std::unique_ptr<ASTUnit> AST = parseSnippet(Code);
  if (!AST)
    return Out;
  ASTContext &Ctx = AST->getASTContext();
  Names N;
  N.TraverseDecl(Ctx.getTranslationUnitDecl());
  const FunctionDecl *Target = nullptr;
  for (auto [It, End] = N.Functions.equal_range("target"); It != End; ++It)
    if (It->second->doesThisDeclarationHaveABody())
      Target = It->second;
  // A lambda stored in a variable named target.
  if (auto It = N.Lambdas.find("target"); It != N.Lambdas.end())
    Target = It->second->getCallOperator();
  if (!Target) {
    ADD_FAILURE() << "the snippet has no function or lambda 'target'";
    return Out;
  }
  // Every variable of the target, by name (the last one wins).
  std::map<std::string, const VarDecl *> Vars;
  struct VarCollector : RecursiveASTVisitor<VarCollector> {
    std::map<std::string, const VarDecl *> *Out;
    bool VisitVarDecl(VarDecl *VD) {
      if (VD->getIdentifier())
        (*Out)[VD->getName().str()] = VD;
      return true;
    }
  } Collector;
  Collector.Out = &Vars;
  Collector.TraverseDecl(const_cast<FunctionDecl *>(Target));
  if (const auto *MD = dyn_cast<CXXMethodDecl>(Target);
      MD && MD->getParent()->isLambda())
    for (const LambdaCapture &C : MD->getParent()->captures())
      if (C.capturesVariable())
        if (const auto *VD = dyn_cast<VarDecl>(C.getCapturedVar()))
          Vars[VD->getName().str()] = VD;

  ApiIndex Index(ApiModel::builtin());
  SummaryProvider Summaries(Ctx, Index, AnalysisLimits());
  Out.Result = analyzeFunction(
      *Target, Ctx, Index, AnalysisLimits(),
      [&](const CFGElement &Elt, const Environment &Env, const OriginTable &) {
        auto S = Elt.getAs<CFGStmt>();
        const auto *Call = S ? dyn_cast<CallExpr>(S->getStmt()) : nullptr;
        std::string Point = Call ? pointName(*Call) : "";
        if (Point.empty())
          return;
        auto &Facts = Out.Facts[Point];
        for (const auto &[Name, VD] : Vars)
          Facts[Name] = factOf(*VD, Env, Index);
      },
      {&Summaries, &Summaries.captures()});
  EXPECT_TRUE(Out.Result.ok())
      << describe(Out.Result.Outcome).str() << ": " << Out.Result.Message;
  return Out;
}

} // namespace testing
} // namespace analysis
} // namespace meshguard
