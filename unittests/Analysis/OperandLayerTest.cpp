//===--- OperandLayerTest.cpp - The operand layer the scanners share ------===//
//
// Which arguments bind parameters and which is the object of a method call
// (TensorOperands.h), the one "is it (maybe) a DTensor" test
// (OperandFacts.h), and the scanners' skeleton (SiteScan.h).
//
//===----------------------------------------------------------------------===//

#include "ModelTesting.h"
#include "meshguard/Analysis/Api/ApiModel.h"
#include "meshguard/Analysis/Facts/SiteScan.h"
#include "meshguard/Analysis/Provenance/OperandFacts.h"
#include "meshguard/Analysis/Provenance/TensorOperands.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "gtest/gtest.h"

using namespace clang;

namespace meshguard {
namespace analysis {
namespace testing {
namespace {

/// The calls in \p FD to functions named \p Name, in source order.
std::vector<const CallExpr *> callsTo(const FunctionDecl &FD,
                                      llvm::StringRef Name) {
  struct Finder : RecursiveASTVisitor<Finder> {
    llvm::StringRef Name;
    std::vector<const CallExpr *> Calls;
    bool VisitCallExpr(CallExpr *Call) {
      const FunctionDecl *Callee = Call->getDirectCallee();
      // By name; an operator (`operator+`) by its spelling.
      if (Callee && Callee->getNameAsString() == Name)
        Calls.push_back(Call);
      return true;
    }
  } F;
  F.Name = Name;
  F.TraverseDecl(const_cast<FunctionDecl *>(&FD));
  return F.Calls;
}

/// The variable a (possibly converted) argument names, or "".
std::string named(const Expr *E) {
  if (!E)
    return "";
  const auto *Ref = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
  return Ref ? Ref->getDecl()->getName().str() : "<expr>";
}

TEST(OperandLayer, ObjectArgumentOfMethodsAndOperators) {
  auto AST = parseSnippet(R"cc(
    void target(at::Tensor w, at::Tensor x) {
      w.add_(x);
      w += x;
      at::Tensor y = w * x;
    })cc");
  const FunctionDecl *FD = findFunction(AST->getASTContext(), "target");
  ASSERT_TRUE(FD);

  std::vector<const CallExpr *> Method = callsTo(*FD, "add_");
  ASSERT_EQ(Method.size(), 1u);
  EXPECT_EQ(named(objectArgument(*Method[0])), "w");
  ASSERT_EQ(parameterArguments(*Method[0]).size(), 1u);
  EXPECT_EQ(named(parameterArguments(*Method[0])[0]), "x");

  // A member operator passes the object as argument 0.
  std::vector<const CallExpr *> Member = callsTo(*FD, "operator+=");
  ASSERT_EQ(Member.size(), 1u);
  EXPECT_EQ(named(objectArgument(*Member[0])), "w");
  ASSERT_EQ(parameterArguments(*Member[0]).size(), 1u);
  EXPECT_EQ(named(parameterArguments(*Member[0])[0]), "x");

  // A free operator has no object: both arguments bind parameters.
  std::vector<const CallExpr *> Free = callsTo(*FD, "operator*");
  ASSERT_EQ(Free.size(), 1u);
  EXPECT_EQ(objectArgument(*Free[0]), nullptr);
  EXPECT_EQ(parameterArguments(*Free[0]).size(), 2u);
}

/// What dtensorPresence says about the argument of each `use(...)` call of
/// `target`, in the order the analysis reaches them.
struct Presences {
  AnalysisResult Result;
  std::vector<std::string> Sites;
};

Presences presencesAtUses(const std::string &Code,
                          AnalysisLimits Limits = AnalysisLimits()) {
  auto AST = parseSnippet(Code);
  ASTContext &Ctx = AST->getASTContext();
  const FunctionDecl *FD = findFunction(Ctx, "target");
  EXPECT_TRUE(FD);
  ApiIndex Index(ApiModel::builtin());
  /// Records what dtensorPresence says of the argument of each use().
  struct PresenceCollector : SiteList<std::string> {
    using SiteList::SiteList;
    void onCall(const CallExpr &Call, const dataflow::Environment &Env,
                const OriginTable &Origins) override {
      const FunctionDecl *Callee = Call.getDirectCallee();
      if (!Callee || !Callee->getDeclName().isIdentifier() ||
          Callee->getName() != "use")
        return;
      std::optional<OperandReading> R =
          readOperand({Call.getArg(0), false}, Env, Origins);
      if (!R) {
        Sites.emplace_back("unreadable");
        return;
      }
      switch (dtensorPresence(*R, Env)) {
      case DTensorPresence::Surely:
        Sites.emplace_back("surely");
        break;
      case DTensorPresence::Maybe:
        Sites.emplace_back("maybe");
        break;
      case DTensorPresence::None:
        Sites.emplace_back("none");
        break;
      }
    }
  };
  Presences Out;
  PresenceCollector Collector(Out.Sites);
  SiteCollector *Watching[] = {&Collector};
  Out.Result = runCollectors(*FD, Ctx, Index, Limits, {}, Watching);
  return Out;
}

const char *const PresenceSnippet = R"cc(
    meshguard::DeviceMesh mesh("cpu", {0, 1});
    void use(const at::Tensor &);
    void target(bool c, at::Tensor param) {
      at::Tensor d = meshguard::distribute_tensor(torch::randn({2}), mesh,
                                                  {meshguard::Replicate{}});
      at::Tensor p = torch::randn({2});
      at::Tensor m = p;
      if (c)
        m = d;
      use(d);
      use(p);
      use(m);
      use(param);
    })cc";

TEST(OperandLayer, DTensorPresenceIsSurelyMaybeOrNone) {
  Presences P = presencesAtUses(PresenceSnippet);
  ASSERT_TRUE(P.Result.ok()) << P.Result.Message;
  // A parameter is unknown: never a maybe, so never a warning.
  EXPECT_EQ(P.Sites,
            (std::vector<std::string>{"surely", "none", "maybe", "none"}));
}

TEST(OperandLayer, ScanSitesDropsTheSitesOfAnUnfinishedAnalysis) {
  AnalysisLimits Tiny;
  Tiny.MaxFunctionElements = 1;
  Presences P = presencesAtUses(PresenceSnippet, Tiny);
  EXPECT_EQ(P.Result.Outcome, AnalysisOutcome::TooLarge);
  EXPECT_TRUE(P.Sites.empty());
}

} // namespace
} // namespace testing
} // namespace analysis
} // namespace meshguard
