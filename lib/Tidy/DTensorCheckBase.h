//===--- DTensorCheckBase.h - What every dtensor-* check shares -*- C++ -*-===//
//
// Options (limits, ReportSkipped), the API index, and the choice of the
// functions worth analysing from the TU's one walk (TUFunctions): only those
// that call something the check cares about are analysed (cost), lambdas
// included. The check matches once per TU (the TranslationUnitDecl).
//
//===----------------------------------------------------------------------===//

#ifndef MESHGUARD_TIDY_DTENSORCHECKBASE_H
#define MESHGUARD_TIDY_DTENSORCHECKBASE_H

#include "AnalysisOptions.h"
#include "Fixes/MeshInScope.h"
#include "SharedTU.h"
#include "clang-tidy/ClangTidyCheck.h"
#include "meshguard/Analysis/Summaries/SummaryDatabase.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringSet.h"
#include <optional>

namespace meshguard {
namespace tidy {

class DTensorCheckBase : public clang::tidy::ClangTidyCheck {
public:
  DTensorCheckBase(llvm::StringRef Name,
                   clang::tidy::ClangTidyContext *Context);
  bool isLanguageVersionSupported(
      const clang::LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus;
  }
  void registerMatchers(clang::ast_matchers::MatchFinder *Finder) override;
  void
  check(const clang::ast_matchers::MatchFinder::MatchResult &Result) override;
  void storeOptions(clang::tidy::ClangTidyOptions::OptionMap &Opts) override;
  void registerPPCallbacks(const clang::SourceManager &SM,
                           clang::Preprocessor *PP,
                           clang::Preprocessor *ModuleExpanderPP) override;
  void onEndOfTranslationUnit() override;

  /// Whether \p FD is one of interestingCallees() or overrides one; cached
  /// per declaration (asked at every call of every function).
  bool isInterestingCallee(const clang::FunctionDecl &FD) const;
  /// Whether \p Ctx's TU declares any of interestingCallees(); once per TU.
  /// When it does not, no function in it is matched (the fixed cost on a TU
  /// that uses none of the API).
  bool tuDeclaresInterestingCallee(const clang::ASTContext &Ctx) const;

protected:
  /// Calls to these (qualified names) make a function worth analysing.
  virtual std::vector<llvm::StringRef> interestingCallees() const = 0;
  /// Also analyse functions that call a function (up to two levels deep)
  /// that calls one of interestingCallees().
  virtual bool followWrappers() const { return false; }
  /// The facts of the summary database (whole-program summaries) this
  /// check uses; none: the database is not read.
  virtual std::optional<analysis::SummaryFactKind> summaryFacts() const {
    return std::nullopt;
  }
  /// The check asks for collectives without a mesh on some path only
  /// (StrictMode): the TU's engine then finds them for every check.
  virtual bool wantsMaybeNoMesh() const { return false; }
  /// Whether the check also analyses a function that calls none of
  /// interestingCallees() (asked of every candidate of the TU: cheap).
  virtual bool alsoAnalyse(const clang::FunctionDecl &, clang::ASTContext &) {
    return false;
  }
  /// Reports on one function (a definition, not dependent, without
  /// errors), from what engine() knows of it.
  virtual void analyse(const clang::FunctionDecl &FD,
                       clang::ASTContext &Ctx) = 0;
  /// The analysis every dtensor-* check of this TU shares (one per API
  /// model and limits).
  analysis::TUAnalysis &engine(clang::ASTContext &Ctx);
  /// False when this check already reported at \p Loc in this TU:
  /// template instantiations share their source, one report per place.
  bool firstReportAt(clang::SourceLocation Loc) {
    return ReportedAt.insert(Loc).second;
  }
  /// Counts \p Result in the statistics and reports a function the analysis
  /// gave up on (under ReportSkipped). False when its findings are void.
  bool finished(const clang::FunctionDecl &FD,
                const analysis::AnalysisResult &Result, llvm::StringRef What);

  /// Declared before what reads the options.
  ConfigReporter Config;
  AnalysisOptions Analysis;
  /// Shared with the TU's engine.
  std::shared_ptr<const analysis::ApiIndex> Index;
  /// The DeviceMesh locals of the function being reported on.
  MeshLocals MeshCache;

private:
  clang::tidy::ClangTidyContext &Context;
  /// Unknown option names are reported once (registerMatchers runs once per
  /// TU).
  bool OptionsVerified = false;
  bool ModelChecked = false;
  /// The TU's sources, for configuration problems shown in the main file.
  const clang::SourceManager *Sources = nullptr;
  llvm::StringSet<> CalleeNames;
  llvm::DenseSet<clang::SourceLocation> ReportedAt;
  /// The global options MeshguardSummaryDatabase and MeshguardSummaryExport
  /// (directories).
  std::string SummaryDatabaseOption;
  std::string SummaryExportOption;
  /// What the checks of this TU share: the engine and the summaries.
  std::shared_ptr<SharedTU> TUShared;
  /// The TU's engine for this check's configuration (engineKey()).
  analysis::TUAnalysis *Engine = nullptr;
  /// The API model and the limits: checks that agree share an engine.
  std::string engineKey(const analysis::AnalysisLimits &Limits) const;
  /// The TU's engine for this check's API model and \p Limits.
  analysis::TUAnalysis &engineWith(clang::ASTContext &Ctx,
                                   const analysis::AnalysisLimits &Limits);
  /// The TU's ASTContext, noted at the match (for the export at the end of
  /// the TU, where clang-tidy gives none).
  clang::ASTContext *TUContext = nullptr;
  /// Joins the TU's summaries, reads the database when this check uses it,
  /// and adds its functions with facts to CalleeNames.
  void loadSummaryDatabase();
  std::shared_ptr<SharedTU> makeSharedTU() const;
  /// Writes the TU's summaries to the export directory (the last check of
  /// the TU does).
  void exportSummaries();
  void addSummarisedNames(const analysis::SummaryLookup &DB,
                          analysis::SummaryFactKind Kind);
  mutable llvm::DenseMap<const clang::FunctionDecl *, bool> CalleeCache;
  mutable const clang::ASTContext *DeclaredCtx = nullptr;
  mutable bool Declared = false;
  /// Functions analysed and skipped in this TU (printed under PrintStats).
  unsigned Analysed = 0;
  llvm::SmallVector<unsigned, 8> Skipped;
  /// SAT queries and solver conflicts, over all analysed functions.
  std::int64_t SATQueries = 0;
  std::int64_t SATConflicts = 0;
  /// Uninstantiated templates (dependent code is not analysed).
  unsigned TemplatePatterns = 0;
};

} // namespace tidy
} // namespace meshguard

#endif // MESHGUARD_TIDY_DTENSORCHECKBASE_H
