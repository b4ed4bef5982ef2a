//===--- AnalysisOptions.cpp - Options every dtensor-* check shares -------===//

#include "AnalysisOptions.h"
#include "meshguard/Analysis/ApiModelYAML.h"
#include <string>

using namespace clang::tidy;

namespace meshguard {
namespace tidy {

/// A limit must be positive: zero or less would skip every function.
template <typename T>
static T getLimit(ClangTidyCheck &Check, llvm::StringRef CheckName,
                  ClangTidyCheck::OptionsView &Options, llvm::StringRef Name,
                  T Default) {
  T Value = Options.get(Name, Default);
  if (Value > 0)
    return Value;
  Check.configurationDiag("invalid configuration value '%0' for option "
                          "'%1.%2': a limit must be positive; using %3")
      << std::to_string(Value) << CheckName << Name
      << std::to_string(Default);
  return Default;
}

AnalysisOptions::AnalysisOptions(ClangTidyCheck &Check, llvm::StringRef CheckName,
                                 ClangTidyCheck::OptionsView &Options) {
  analysis::AnalysisLimits Defaults;
  Limits.MaxSATConflicts =
      getLimit(Check, CheckName, Options, "MaxSATConflicts", Defaults.MaxSATConflicts);
  Limits.MaxBlockVisits =
      getLimit(Check, CheckName, Options, "MaxBlockVisits", Defaults.MaxBlockVisits);
  Limits.MaxFunctionElements = getLimit(Check, CheckName, Options, "MaxFunctionElements",
                                        Defaults.MaxFunctionElements);
  ReportSkipped = getBoolOption(Check, CheckName, Options, "ReportSkipped", false);
  ModelFile = Options.get("ModelFile", "").str();
  PrintStats = getBoolOption(Check, CheckName, Options, "PrintStats", false);
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

bool getBoolOption(ClangTidyCheck &Check, llvm::StringRef CheckName,
                   ClangTidyCheck::OptionsView &Options, llvm::StringRef Name,
                   bool Default) {
  llvm::StringRef Value = Options.get(Name, Default ? "true" : "false");
  if (Value.equals_insensitive("true") || Value == "1")
    return true;
  if (Value.equals_insensitive("false") || Value == "0")
    return false;
  Check.configurationDiag("invalid configuration value '%0' for option "
                          "'%1.%2': expected true or false; using %3")
      << Value << CheckName << Name << (Default ? "true" : "false");
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
