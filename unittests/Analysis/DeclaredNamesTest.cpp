//===--- DeclaredNamesTest.cpp - Does a TU declare any of these names -----===//

#include "meshguard/Analysis/Api/DeclaredNames.h"
#include "ModelTesting.h"
#include "clang/Tooling/Tooling.h"
#include "gtest/gtest.h"

namespace meshguard {
namespace analysis {
namespace {

std::unique_ptr<clang::ASTUnit> parse(const std::string &Code) {
  auto AST = clang::tooling::buildASTFromCodeWithArgs(
      Code, {"-std=c++17", "-fsyntax-only"}, "declared.cpp");
  EXPECT_TRUE(AST && !AST->getDiagnostics().hasErrorOccurred());
  return AST;
}

TEST(DeclaredNames, FindsFunctionsInNamespacesAndClasses) {
  auto AST = parse(R"cc(
    namespace meshguard { namespace dist { void broadcast_(int); } }
    namespace c10d { class ProcessGroup { public: void broadcast(); }; }
  )cc");
  const clang::ASTContext &Ctx = AST->getASTContext();
  EXPECT_TRUE(declaresName(Ctx, "meshguard::dist::broadcast_"));
  EXPECT_TRUE(declaresName(Ctx, "c10d::ProcessGroup::broadcast"));
  EXPECT_FALSE(declaresName(Ctx, "meshguard::dist::all_reduce_"));
  EXPECT_FALSE(declaresName(Ctx, "c10d::ProcessGroup::allreduce"));
  EXPECT_FALSE(declaresName(Ctx, "meshguard::broadcast_"));
}

TEST(DeclaredNames, ReopenedAndInlineNamespacesAndTemplates) {
  auto AST = parse(R"cc(
    namespace torch { int unrelated; }
    namespace torch { inline namespace v1 { template <class T> T randn(T); } }
    extern "C++" { namespace at { void zeros(); } }
  )cc");
  const clang::ASTContext &Ctx = AST->getASTContext();
  EXPECT_TRUE(declaresName(Ctx, "torch::randn"));
  EXPECT_TRUE(declaresName(Ctx, "at::zeros"));
  EXPECT_TRUE(declaresAnyOf(Ctx, {"nothing::here", "at::zeros"}));
  EXPECT_FALSE(declaresAnyOf(Ctx, {"nothing::here", "at::ones"}));
}

TEST(DeclaredNames, AForwardDeclaredClassHasNoMembers) {
  auto AST = parse(R"cc(
    namespace c10d { class ProcessGroup; }
  )cc");
  EXPECT_FALSE(
      declaresName(AST->getASTContext(), "c10d::ProcessGroup::broadcast"));
}

TEST(DeclaredNames, TheStubRuntimeDeclaresTheApi) {
  auto AST = testing::parseSnippet("");
  const clang::ASTContext &Ctx = AST->getASTContext();
  EXPECT_TRUE(declaresName(Ctx, "meshguard::dist::broadcast_"));
  EXPECT_TRUE(declaresName(Ctx, "meshguard::CollectiveGuard::sanitize_args"));
  EXPECT_TRUE(declaresName(Ctx, "c10d::ProcessGroup::allgather"));
}

} // namespace
} // namespace analysis
} // namespace meshguard
