//===--- DTensorCheckBase.cpp - What every dtensor-* check shares ---------===//

#include "DTensorCheckBase.h"
#include "ApiModelChecks.h"
#include "DiagnosticMessages.h"
#include "meshguard/Analysis/Api/DeclaredNames.h"
#include "meshguard/Analysis/Engine/SummaryExport.h"
#include "meshguard/Analysis/Engine/UserCodeScope.h"
#include "meshguard/Analysis/Provenance/LambdaCaptures.h"
#include "meshguard/Analysis/Summaries/Summaries.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdlib>

using namespace clang;
using namespace clang::ast_matchers;

namespace meshguard {
namespace tidy {

DTensorCheckBase::DTensorCheckBase(StringRef Name,
                                   clang::tidy::ClangTidyContext *Context)
    : ClangTidyCheck(Name, Context), Config(*this),
      Analysis(Config, Name, Options),
      Index(makeApiIndex(Analysis.ModelFile, Config)), Context(*Context),
      SummaryDatabaseOption(Options.getLocalOrGlobal("MeshguardSummaryDatabase")
                                .value_or("")
                                .str()),
      SummaryExportOption(Options.getLocalOrGlobal("MeshguardSummaryExport")
                              .value_or("")
                              .str()) {}

void DTensorCheckBase::registerPPCallbacks(const SourceManager &SM,
                                           Preprocessor *, Preprocessor *) {
  Sources = &SM;
  // clang-tidy registers the matchers (where the database is loaded) before
  // the callbacks, clangd after; lookups come later still, in check().
  if (TUShared)
    TUShared->setMainFile(analysis::mainFilePath(SM));
}

void DTensorCheckBase::storeOptions(
    clang::tidy::ClangTidyOptions::OptionMap &Opts) {
  Analysis.store(Opts, Options);
}

bool DTensorCheckBase::tuDeclaresInterestingCallee(
    const ASTContext &Ctx) const {
  if (DeclaredCtx != &Ctx) {
    llvm::SmallVector<StringRef, 32> Names;
    for (const auto &Entry : CalleeNames)
      Names.push_back(Entry.getKey());
    Declared = analysis::declaresAnyOf(Ctx, Names);
    DeclaredCtx = &Ctx;
  }
  return Declared;
}

bool DTensorCheckBase::isInterestingCallee(const FunctionDecl &FD) const {
  const FunctionDecl *Key = FD.getCanonicalDecl();
  if (auto It = CalleeCache.find(Key); It != CalleeCache.end())
    return It->second;
  bool Found = CalleeNames.contains(FD.getQualifiedNameAsString());
  if (const auto *MD = dyn_cast<CXXMethodDecl>(&FD); MD && !Found)
    Found = llvm::any_of(MD->overridden_methods(), [&](const CXXMethodDecl *O) {
      return isInterestingCallee(*O);
    });
  CalleeCache[Key] = Found;
  return Found;
}

void DTensorCheckBase::registerMatchers(MatchFinder *Finder) {
  if (!OptionsVerified) {
    OptionsVerified = true;
    clang::tidy::ClangTidyOptions::OptionMap Known;
    storeOptions(Known);
    reportUnknownOptions(Config, getID(), Context, Known);
  }
  CalleeNames.clear();
  for (StringRef Name : interestingCallees())
    CalleeNames.insert(Name);
  loadSummaryDatabase();
  // One match per TU: the functions worth analysing come from the TU's one
  // walk (TUFunctions), not from matchers that every declaration of the
  // headers passes through once per check.
  Finder->addMatcher(translationUnitDecl().bind("tu"), this);
}

std::shared_ptr<SharedTU> DTensorCheckBase::makeSharedTU() const {
  // clang-tidy knows the compile command's directory; clangd gives it as
  // the working directory of the TU's file system.
  std::string BuildDir = Context.getCurrentBuildDirectory();
  if (BuildDir.empty() && Sources)
    if (llvm::ErrorOr<std::string> Cwd = Sources->getFileManager()
                                             .getVirtualFileSystem()
                                             .getCurrentWorkingDirectory())
      BuildDir = *Cwd;
  auto Shared = std::make_shared<SharedTU>();
  Shared->ExportDir =
      analysis::findSummaryExportDirectory(SummaryExportOption, BuildDir);
  Shared->DatabaseDir = analysis::findSummaryDirectory(
      SummaryDatabaseOption, BuildDir, Shared->ExportDir);
  return Shared;
}

void DTensorCheckBase::loadSummaryDatabase() {
  Engine = nullptr;
  TUShared = joinSharedTU(&Context, getID(), [&] { return makeSharedTU(); });
  if (wantsMaybeNoMesh())
    TUShared->WantMaybeNoMesh = true;
  if (Sources)
    TUShared->setMainFile(analysis::mainFilePath(*Sources));
  std::optional<analysis::SummaryFactKind> Kind = summaryFacts();
  if (!Kind || !TUShared->usesDatabase())
    return;
  const analysis::SummaryLookup &DB = TUShared->lookup();
  // Each problem once per TU: from the first enabled check that reads the
  // database (they all read the same one).
  const auto *First = llvm::find_if(DTensorCheckNames, [&](StringRef Name) {
    return Context.isCheckEnabled(Name);
  });
  if (First == std::end(DTensorCheckNames) || *First != getID())
    return addSummarisedNames(DB, *Kind);
  const std::string &Dir = TUShared->DatabaseDir;
  bool Named = !SummaryDatabaseOption.empty() ||
               std::getenv(analysis::SummaryDatabaseVariable);
  if (Named && !llvm::sys::fs::exists(Dir))
    Config.report("summary database '" + Dir +
                  "' (MeshguardSummaryDatabase or " +
                  analysis::SummaryDatabaseVariable +
                  ") does not exist; functions of other files are unknown");
  for (const std::string &Problem : DB.database().problems())
    Config.report("summary database: " + Problem);
  addSummarisedNames(DB, *Kind);
}

std::string
DTensorCheckBase::engineKey(const analysis::AnalysisLimits &Limits) const {
  return Analysis.ModelFile + '\n' + std::to_string(Limits.MaxSATConflicts) +
         ' ' + std::to_string(Limits.MaxBlockVisits) + ' ' +
         std::to_string(Limits.MaxFunctionElements);
}

analysis::TUAnalysis &DTensorCheckBase::engine(ASTContext &Ctx) {
  if (Engine && &Engine->context() == &Ctx)
    return *Engine;
  Engine = &engineWith(Ctx, Analysis.Limits);
  return *Engine;
}

analysis::TUAnalysis &
DTensorCheckBase::engineWith(ASTContext &Ctx,
                             const analysis::AnalysisLimits &Limits) {
  return TUShared->engine(engineKey(Limits), [&] {
    auto Made = std::make_unique<analysis::TUAnalysis>(
        Ctx, Index, Limits,
        TUShared->usesDatabase() ? &TUShared->lookup() : nullptr);
    if (TUShared->WantMaybeNoMesh)
      Made->wantMaybeNoMesh();
    return Made;
  });
}

void DTensorCheckBase::exportSummaries() {
  if (!TUContext)
    return; // Nothing was parsed.
  std::string TU = analysis::mainFilePath(*TUContext);
  if (TU.empty())
    return;
  // Exported summaries are computed with the default limits, by the engine
  // of the checks that ran with them (what they asked is not computed
  // again), or else by the engine such a check would have had.
  analysis::TUAnalysis &Shared =
      engineWith(*TUContext, analysis::AnalysisLimits());
  const char *Tag = std::getenv(analysis::SummaryTagVariable);
  std::string Text;
  {
    analysis::UserCodeScope Scope(*TUContext);
    Text =
        analysis::exportSummaries(Shared, Tag ? Tag : "", &TUShared->lookup());
  }
  const std::string &Dir = TUShared->ExportDir;
  llvm::SmallString<256> Path(Dir);
  llvm::sys::path::append(Path, analysis::summaryFileName(TU));
  llvm::Error Written =
      llvm::errorCodeToError(llvm::sys::fs::create_directories(Dir));
  if (!Written)
    Written = analysis::writeFileAtomically(Path, Text);
  if (Written)
    Config.report("summary export (MeshguardSummaryExport or " +
                      std::string(analysis::SummaryExportVariable) +
                      "): cannot write this file's summaries to '" + Dir +
                      "': " + llvm::toString(std::move(Written)),
                  DiagnosticIDs::Error);
}

void DTensorCheckBase::addSummarisedNames(const analysis::SummaryLookup &DB,
                                          analysis::SummaryFactKind Kind) {
  for (const std::string &Name : DB.database().namesWith(Kind))
    CalleeNames.insert(Name);
}

void DTensorCheckBase::check(const MatchFinder::MatchResult &Result) {
  ASTContext &Ctx = *Result.Context;
  TUContext = &Ctx;
  if (!tuDeclaresInterestingCallee(Ctx))
    return;
  TUFunctions &Functions = TUShared->functions(Ctx);
  analysis::UserCodeScope Scope(Ctx);
  // The user's wrappers, two levels deep, when the check follows them.
  unsigned Depth = followWrappers() ? 2 : 0;
  auto Interesting = [&](const FunctionDecl &Callee) {
    return isInterestingCallee(Callee);
  };
  for (const TUFunctions::Entry &E : Functions.entries()) {
    if (!Functions.calls(E, Interesting, Depth) &&
        !alsoAnalyse(*E.Function, Ctx))
      continue;
    const FunctionDecl *FD = E.Function;
    if (FD->isDependentContext()) {
      // A template's pattern: its instantiations are analysed one by one.
      ++TemplatePatterns;
      continue;
    }
    if (FD->isInvalidDecl() || !FD->doesThisDeclarationHaveABody())
      continue;
    if (!ModelChecked) {
      // Once per TU, when the whole TU is parsed: the model's user entries
      // against the declarations it names.
      ModelChecked = true;
      checkModelAgainstTU(Index->model(), Ctx, Config);
    }
    ++Analysed;
    analyse(*FD, Ctx);
  }
}

void DTensorCheckBase::onEndOfTranslationUnit() {
  // Before the configuration problems are repeated: an export that fails
  // is one of them.
  if (TUShared && leaveSharedTU(&Context, getID()) &&
      !TUShared->ExportDir.empty())
    exportSummaries();
  TUContext = nullptr;
  ReportedAt.clear();
  MeshCache = MeshLocals(); // Its declarations die with the AST.
  CalleeCache.clear();
  DeclaredCtx = nullptr;
  // clangd (self-contained diagnostics) drops those without a location.
  if (areDiagsSelfContained() && Sources)
    for (const ConfigReporter::Problem &P : Config.Problems)
      diag(Sources->getLocForStartOfFile(Sources->getMainFileID()),
           msg::Configuration, P.Level)
          << P.Text;
  if (!Analysis.PrintStats)
    return;
  unsigned Total = 0;
  for (unsigned N : Skipped)
    Total += N;
  llvm::errs() << "meshguard: " << getID() << ": " << Analysed
               << " function(s) analysed, " << Total << " skipped";
  for (unsigned I = 0; I < Skipped.size(); ++I)
    if (Skipped[I])
      llvm::errs() << "; " << Skipped[I] << " because "
                   << describe(static_cast<analysis::AnalysisOutcome>(I));
  unsigned EnclosingAnalysed = 0, LambdasAsked = 0;
  if (Engine) {
    const analysis::LambdaCaptureMemo &Captures =
        Engine->summaries().captures();
    EnclosingAnalysed = Captures.functionsAnalysed();
    LambdasAsked = Captures.lambdasAsked();
  }
  llvm::errs() << "; " << TemplatePatterns
               << " template pattern(s) left to their instantiations; "
               << EnclosingAnalysed
               << " enclosing function(s) analysed for the captures of "
               << LambdasAsked << " lambda(s); " << SATQueries
               << " SAT queries, " << SATConflicts << " solver conflicts";
  if (Engine)
    llvm::errs() << "; " << Engine->provenanceRuns()
                 << " provenance run(s) shared by the TU's checks";
  llvm::errs() << "\n";
}

bool DTensorCheckBase::finished(const FunctionDecl &FD,
                                const analysis::AnalysisResult &Result,
                                StringRef What) {
  using analysis::AnalysisOutcome;
  SATQueries += Result.SATQueries;
  SATConflicts += Result.SATConflicts;
  if (Result.ok())
    return true;
  unsigned Kind = static_cast<unsigned>(Result.Outcome);
  if (Skipped.size() <= Kind)
    Skipped.resize(Kind + 1, 0);
  ++Skipped[Kind];
  if (!Analysis.ReportSkipped || Result.Outcome == AnalysisOutcome::NoCFG ||
      Result.Outcome == AnalysisOutcome::HasErrors)
    return false;
  diag(FD.getLocation(), msg::NotChecked, DiagnosticIDs::Remark)
      << &FD << What << describe(Result.Outcome);
  return false;
}

} // namespace tidy
} // namespace meshguard
