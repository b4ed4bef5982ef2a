//===- SummarizeMode.cpp - meshguard-tidy --summarize: the summary pass ---===//
//
//   meshguard-tidy --summarize=DIR [-p BUILD] [--summary-model=FILE]
//                  [--summary-tag=TEXT] FILE...
//
// The first pass of the whole-program analysis: parses each FILE with its
// compile command (BUILD/compile_commands.json, found as clang-tidy finds it
// when -p is not given) and writes the summaries of the functions it defines
// to DIR/<hash of the file's path>.json (SummaryDatabase.h). Callees of
// other files get the entries of the database: DIR itself, or
// $MESHGUARD_SUMMARY_DATABASE when set (so a helper's summary carries what
// its own helpers in other files do). The built-in API model is used,
// extended by --summary-model (the check option ModelFile's YAML).
// --summary-tag is recorded as the file's "command" (meshguard-run stores the
// hash of the compile command there). A mode of meshguard-tidy, not a tool of
// its own: one static link of clang instead of two. Exit status: 0 all files
// summarised; 1 some could not be (parse failure, unwritable DIR); 2 bad usage.
//
//===----------------------------------------------------------------------===//

#include "SummarizeMode.h"

#include "meshguard/Analysis/Api/ApiIndex.h"
#include "meshguard/Analysis/Api/ApiModelYAML.h"
#include "meshguard/Analysis/Engine/SummaryExport.h"
#include "meshguard/Analysis/Engine/TUAnalysis.h"
#include "meshguard/Analysis/Engine/UserCodeScope.h"
#include "meshguard/Analysis/Summaries/SummaryDatabase.h"
#include "clang/AST/ASTConsumer.h"
#include "clang/AST/ASTContext.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdlib>
#include <set>

using namespace clang;
using namespace meshguard::analysis;

namespace meshguard {

namespace {

struct Settings {
  std::string OutDir;
  /// The database the summaries import from (DIR unless named).
  std::string DatabaseDir;
  std::string BuildDir;
  std::string ModelFile;
  std::string Tag;
  std::vector<std::string> Files;
};

class SummaryConsumer : public ASTConsumer {
public:
  SummaryConsumer(const Settings &S, const ApiModel &Model, bool &Failed,
                  unsigned &Done)
      : S(S), Model(Model), Failed(Failed), Done(Done) {}

  // The bodies of system-header functions are never summarised (nor
  // analysed through: SummaryProvider::get refuses them): not parsing them
  // is most of what makes this pass cheaper than the check pass, which
  // parses everything (docs/tools/performance.md).
  bool shouldSkipFunctionBody(Decl *D) override {
    const SourceManager &SM = D->getASTContext().getSourceManager();
    return SM.isInSystemHeader(SM.getExpansionLoc(D->getLocation()));
  }

  void HandleTranslationUnit(ASTContext &Ctx) override {
    ++Done;
    std::string TU = mainFilePath(Ctx);
    if (TU.empty()) {
      Failed = true;
      return;
    }
    auto Index = std::make_shared<const ApiIndex>(Model);
    // Loaded again for each file only when a file of it changed (the
    // previous file's summaries, written just now, count).
    std::shared_ptr<const SummaryDatabase> DB =
        loadSharedSummaryDatabase(S.DatabaseDir);
    for (const std::string &Problem : DB->problems())
      if (ReportedProblems.insert(Problem).second)
        llvm::errs() << "meshguard-tidy: warning: summary database: " << Problem
                     << "\n";
    SummaryLookup Lookups(DB);
    Lookups.setOwnTU(TU);
    // The engine a check run with the default limits builds, with the
    // database: the same summaries as a check run's export.
    UserCodeScope Scope(Ctx); // getParents: the user's code, not libtorch's.
    TUAnalysis Engine(Ctx, Index, AnalysisLimits(), &Lookups);
    std::string Text = exportSummaries(Engine, S.Tag, &Lookups);
    llvm::SmallString<256> Out(S.OutDir);
    llvm::sys::path::append(Out, summaryFileName(TU));
    if (llvm::Error E = writeFileAtomically(Out, Text)) {
      llvm::errs() << "meshguard-tidy: " << llvm::toString(std::move(E))
                   << "\n";
      Failed = true;
    }
  }

private:
  const Settings &S;
  const ApiModel &Model;
  bool &Failed;
  unsigned &Done;
  /// Each database problem once per run (not once per file).
  static inline std::set<std::string> ReportedProblems;
};

class SummaryAction : public ASTFrontendAction {
public:
  SummaryAction(const Settings &S, const ApiModel &Model, bool &Failed,
                unsigned &Done)
      : S(S), Model(Model), Failed(Failed), Done(Done) {}
  bool BeginInvocation(CompilerInstance &CI) override {
    // Sema then asks the consumer, function by function.
    CI.getFrontendOpts().SkipFunctionBodies = true;
    return true;
  }
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &,
                                                 llvm::StringRef) override {
    return std::make_unique<SummaryConsumer>(S, Model, Failed, Done);
  }

private:
  const Settings &S;
  const ApiModel &Model;
  bool &Failed;
  unsigned &Done;
  /// Each database problem once per run (not once per file).
  static inline std::set<std::string> ReportedProblems;
};

class SummaryActionFactory : public tooling::FrontendActionFactory {
public:
  SummaryActionFactory(const Settings &S, const ApiModel &Model, bool &Failed,
                       unsigned &Done)
      : S(S), Model(Model), Failed(Failed), Done(Done) {}
  std::unique_ptr<FrontendAction> create() override {
    return std::make_unique<SummaryAction>(S, Model, Failed, Done);
  }

private:
  const Settings &S;
  const ApiModel &Model;
  bool &Failed;
  unsigned &Done;
};

/// The value of \p Arg if it is `--Name=V`, `-Name=V`, or `-Name V` /
/// `--Name V` (then the value is the next argument: \p I advances).
std::optional<std::string> valueOf(llvm::StringRef Name, int &I, int Argc,
                                   const char **Argv) {
  llvm::StringRef Arg = Argv[I];
  if (!Arg.consume_front("--"))
    Arg.consume_front("-");
  if (!Arg.consume_front(Name))
    return std::nullopt;
  if (Arg.consume_front("="))
    return Arg.str();
  if (!Arg.empty() || I + 1 >= Argc)
    return std::nullopt;
  return std::string(Argv[++I]);
}

} // namespace

bool isSummarizeMode(int Argc, const char **Argv) {
  for (int I = 1; I < Argc; ++I) {
    llvm::StringRef Arg = Argv[I];
    if (Arg == "--")
      return false;
    if (Arg.starts_with("--summarize=") || Arg == "--summarize")
      return true;
  }
  return false;
}

int summarizeMain(int Argc, const char **Argv) {
  Settings S;
  for (int I = 1; I < Argc; ++I) {
    llvm::StringRef Arg = Argv[I];
    if (auto V = valueOf("summarize", I, Argc, Argv))
      S.OutDir = *V;
    else if (auto V = valueOf("summary-model", I, Argc, Argv))
      S.ModelFile = *V;
    else if (auto V = valueOf("summary-tag", I, Argc, Argv))
      S.Tag = *V;
    else if (auto V = valueOf("p", I, Argc, Argv))
      S.BuildDir = *V;
    else if (Arg.starts_with("-")) {
      llvm::errs() << "meshguard-tidy: --summarize takes -p BUILD, "
                      "--summary-model=FILE, --summary-tag=TEXT and files; "
                      "not '"
                   << Arg << "'\n";
      return 2;
    } else
      S.Files.push_back(Arg.str());
  }
  if (S.OutDir.empty() || S.Files.empty()) {
    llvm::errs() << "meshguard-tidy: usage: meshguard-tidy --summarize=DIR "
                    "[-p BUILD] FILE...\n";
    return 2;
  }
  if (std::error_code EC = llvm::sys::fs::create_directories(S.OutDir)) {
    llvm::errs() << "meshguard-tidy: cannot create '" << S.OutDir
                 << "': " << EC.message() << "\n";
    return 1;
  }
  const char *Named = std::getenv(SummaryDatabaseVariable);
  S.DatabaseDir = Named && *Named ? Named : S.OutDir;

  std::string Error;
  std::unique_ptr<tooling::CompilationDatabase> DB =
      S.BuildDir.empty()
          ? tooling::CompilationDatabase::autoDetectFromSource(S.Files.front(),
                                                               Error)
          : tooling::CompilationDatabase::autoDetectFromDirectory(S.BuildDir,
                                                                  Error);
  if (!DB) {
    llvm::errs() << "meshguard-tidy: no compilation database: " << Error
                 << "\n";
    return 2;
  }

  ApiModel Model = ApiModel::builtin();
  if (!S.ModelFile.empty()) {
    llvm::Expected<ApiModel> User = loadApiModel(S.ModelFile);
    if (!User) {
      llvm::errs() << "meshguard-tidy: invalid meshguard API model "
                   << llvm::toString(User.takeError()) << "\n";
      return 2;
    }
    Model.append(*User);
  }

  bool Failed = false;
  unsigned Done = 0;
  tooling::ClangTool Tool(*DB, S.Files);
  // Compiler errors are the check pass's to report; here they only make
  // the functions that have them unknown.
  IgnoringDiagConsumer Quiet;
  Tool.setDiagnosticConsumer(&Quiet);
  SummaryActionFactory Factory(S, Model, Failed, Done);
  // Its status 1 also means "compiler errors", which still give summaries
  // (of the functions without errors); a file that could not be parsed at
  // all (no compile command, a missing file) wrote none: counted here.
  Tool.run(&Factory);
  if (Done < S.Files.size()) {
    llvm::errs() << "meshguard-tidy: " << S.Files.size() - Done << " of "
                 << S.Files.size() << " file(s) could not be summarised\n";
    Failed = true;
  }
  return Failed ? 1 : 0;
}

} // namespace meshguard
