//===--- AnalysisOptions.cpp - Options every dtensor-* check shares -------===//

#include "AnalysisOptions.h"

using namespace clang::tidy;

namespace meshguard {
namespace tidy {

AnalysisOptions::AnalysisOptions(ClangTidyCheck::OptionsView &Options) {
  analysis::AnalysisLimits Defaults;
  Limits.MaxSATIterations =
      Options.get("MaxSATIterations", Defaults.MaxSATIterations);
  Limits.MaxBlockVisits = Options.get("MaxBlockVisits", Defaults.MaxBlockVisits);
  Limits.MaxFunctionElements =
      Options.get("MaxFunctionElements", Defaults.MaxFunctionElements);
  ReportSkipped = getBoolOption(Options, "ReportSkipped", false);
}

void AnalysisOptions::store(ClangTidyOptions::OptionMap &Opts,
                            ClangTidyCheck::OptionsView &Options) const {
  Options.store(Opts, "MaxSATIterations", Limits.MaxSATIterations);
  Options.store(Opts, "MaxBlockVisits", Limits.MaxBlockVisits);
  Options.store(Opts, "MaxFunctionElements", Limits.MaxFunctionElements);
  storeBoolOption(Opts, Options, "ReportSkipped", ReportSkipped);
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

std::unique_ptr<analysis::ApiIndex> makeApiIndex() {
  return std::make_unique<analysis::ApiIndex>(analysis::ApiModel::builtin());
}

} // namespace tidy
} // namespace meshguard
