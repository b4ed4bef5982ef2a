//===--- AnalysisOptions.cpp - Options every dtensor-* check shares -------===//

#include "AnalysisOptions.h"
#include "meshguard/Analysis/ApiModelYAML.h"

using namespace clang::tidy;

namespace meshguard {
namespace tidy {

AnalysisOptions::AnalysisOptions(ClangTidyCheck::OptionsView &Options) {
  analysis::AnalysisLimits Defaults;
  Limits.MaxSATConflicts =
      Options.get("MaxSATConflicts", Defaults.MaxSATConflicts);
  Limits.MaxBlockVisits = Options.get("MaxBlockVisits", Defaults.MaxBlockVisits);
  Limits.MaxFunctionElements =
      Options.get("MaxFunctionElements", Defaults.MaxFunctionElements);
  ReportSkipped = getBoolOption(Options, "ReportSkipped", false);
  ModelFile = Options.get("ModelFile", "").str();
  PrintStats = getBoolOption(Options, "PrintStats", false);
}

void AnalysisOptions::store(ClangTidyOptions::OptionMap &Opts,
                            ClangTidyCheck::OptionsView &Options) const {
  Options.store(Opts, "MaxSATConflicts", Limits.MaxSATConflicts);
  Options.store(Opts, "MaxBlockVisits", Limits.MaxBlockVisits);
  Options.store(Opts, "MaxFunctionElements", Limits.MaxFunctionElements);
  storeBoolOption(Opts, Options, "ReportSkipped", ReportSkipped);
  Options.store(Opts, "ModelFile", ModelFile);
  storeBoolOption(Opts, Options, "PrintStats", PrintStats);
}

bool getBoolOption(ClangTidyCheck::OptionsView &Options, llvm::StringRef Name,
                   bool Default) {
  llvm::StringRef Value = Options.get(Name, Default ? "true" : "false");
  if (Value.equals_insensitive("true") || Value == "1")
    return true;
  if (Value.equals_insensitive("false") || Value == "0")
    return false;
  return Default;
}

void storeBoolOption(ClangTidyOptions::OptionMap &Opts,
                     ClangTidyCheck::OptionsView &Options, llvm::StringRef Name,
                     bool Value) {
  Options.store(Opts, Name, Value ? "true" : "false");
}

std::unique_ptr<analysis::ApiIndex>
makeApiIndex(llvm::StringRef ModelFile, ClangTidyCheck &Check) {
  analysis::ApiModel Model = analysis::ApiModel::builtin();
  if (!ModelFile.empty()) {
    llvm::Expected<analysis::ApiModel> User = analysis::loadApiModel(ModelFile);
    if (User)
      Model.append(*User);
    else
      Check.configurationDiag("invalid meshguard API model %0; using the "
                              "built-in model only",
                              clang::DiagnosticIDs::Error)
          << llvm::toString(User.takeError());
  }
  return std::make_unique<analysis::ApiIndex>(std::move(Model));
}

} // namespace tidy
} // namespace meshguard
