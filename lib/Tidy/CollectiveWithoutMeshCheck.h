//===--- CollectiveWithoutMeshCheck.h - dtensor-collective-without-mesh -*- C++ -*-===//

#ifndef MESHGUARD_TIDY_COLLECTIVEWITHOUTMESHCHECK_H
#define MESHGUARD_TIDY_COLLECTIVEWITHOUTMESHCHECK_H

#include "AnalysisOptions.h"
#include "meshguard/Analysis/CollectiveSites.h"
#include "clang-tidy/ClangTidyCheck.h"

namespace meshguard {
namespace tidy {

/// Finds calls to mesh-inferred collectives (meshguard::dist::broadcast_, ...)
/// whose tensor arguments are all plain tensors: the runtime cannot find a
/// DeviceMesh and throws. Offers the mesh-explicit guarded:: form.
///
/// For the user-facing documentation see:
/// docs/checks/dtensor-collective-without-mesh.md
class CollectiveWithoutMeshCheck : public clang::tidy::ClangTidyCheck {
public:
  CollectiveWithoutMeshCheck(llvm::StringRef Name,
                             clang::tidy::ClangTidyContext *Context);
  bool isLanguageVersionSupported(const clang::LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus;
  }
  void registerMatchers(clang::ast_matchers::MatchFinder *Finder) override;
  void check(const clang::ast_matchers::MatchFinder::MatchResult &Result) override;
  void storeOptions(clang::tidy::ClangTidyOptions::OptionMap &Opts) override;

private:
  void analyse(const clang::FunctionDecl &FD, clang::ASTContext &Ctx);
  void report(const clang::FunctionDecl &FD,
              const analysis::CollectiveSite &Site, clang::ASTContext &Ctx);
  void reportSkipped(const clang::FunctionDecl &FD,
                     const analysis::AnalysisResult &Result);

  AnalysisOptions Analysis;
  const bool StrictMode;
  std::unique_ptr<analysis::ApiIndex> Index;
};

} // namespace tidy
} // namespace meshguard

#endif // MESHGUARD_TIDY_COLLECTIVEWITHOUTMESHCHECK_H
