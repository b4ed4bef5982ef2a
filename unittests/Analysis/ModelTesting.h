//===--- ModelTesting.h - Run the provenance model on a snippet -*- C++ -*-===//
//
// The unit tests' harness, in the manner of clang's dataflow model tests
// (clang/unittests/Analysis/FlowSensitive): a snippet with the stub headers
// (test/Inputs/stubs), program points marked by calls `point("name")`, and
// the fact the model holds there about a named variable of the function
// `target`:
//
//   auto Facts = analyseTarget(R"cc(
//     void target() {
//       at::Tensor t = torch::randn({2});
//       point("p");
//     })cc");
//   EXPECT_EQ(Facts.at("p", "t"), "plain");
//
//===----------------------------------------------------------------------===//

#ifndef MESHGUARD_UNITTESTS_MODELTESTING_H
#define MESHGUARD_UNITTESTS_MODELTESTING_H

#include "meshguard/Analysis/Api/ApiIndex.h"
#include "meshguard/Analysis/Provenance/FunctionAnalysis.h"
#include "clang/Frontend/ASTUnit.h"
#include <map>
#include <memory>
#include <string>

namespace meshguard {
namespace analysis {
namespace testing {

/// What the model knows at each marked point.
struct PointFacts {
  AnalysisResult Result;
  /// Point name -> variable name -> fact: "dtensor", "plain", "unknown",
  /// "maybe-plain", "maybe-dtensor" (a tensor, every element of a container,
  /// a module's parameters); "true", "false", "unknown" for a bool; "none"
  /// when the variable has no location or value there.
  std::map<std::string, std::map<std::string, std::string>> Facts;
  /// Points the analysis reached: a point missing here was not reached.
  std::string at(const std::string &Point, const std::string &Var) const;
};

/// Parses \p Code after the stub headers (meshguard, torch, c10d) and a
/// declaration of `void point(const char *)`, and analyses the function (or
/// lambda call operator) named `target` with the built-in API model, summaries
/// of the TU's own functions and default limits. The snippet must compile:
/// compile errors fail the test.
PointFacts analyseTarget(const std::string &Code);

/// The snippet's AST, for tests of the API index.
std::unique_ptr<clang::ASTUnit> parseSnippet(const std::string &Code);

/// The first function declaration named \p QualifiedName in \p AST.
const clang::FunctionDecl *findFunction(clang::ASTContext &Ctx,
                                        const std::string &QualifiedName);

} // namespace testing
} // namespace analysis
} // namespace meshguard

#endif // MESHGUARD_UNITTESTS_MODELTESTING_H
