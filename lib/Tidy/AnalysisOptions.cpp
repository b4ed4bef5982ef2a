//===--- AnalysisOptions.cpp - Options every dtensor-* check shares -------===//

#include "AnalysisOptions.h"
#include "ApiModelChecks.h"
#include "clang-tidy/ClangTidyDiagnosticConsumer.h"
#include "meshguard/Analysis/Api/ApiModelYAML.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include <cstdint>
#include <limits>
#include <optional>
#include <string>

using namespace clang::tidy;

namespace meshguard {
namespace tidy {

void ConfigReporter::report(std::string Text,
                            clang::DiagnosticIDs::Level Level) {
  Check.configurationDiag("%0", Level) << Text;
  Problems.push_back({std::move(Text), Level});
}

/// Every limit is an integer from 1 to 2^31-1: zero or less would skip every
/// function, and one range for all of them is easy to state.
constexpr std::int64_t MaxLimit = std::numeric_limits<std::int32_t>::max();

/// A limit: an integer in 1..MaxLimit. Anything else is reported (not an
/// integer, out of range, not positive) and gives \p Default.
/// An analysis option: the check's own (`dtensor-x.Name`), else the global
/// `MeshguardName` that every dtensor-* check reads (checks that agree on
/// the analysis share one engine); and the name it was given as.
static std::optional<std::pair<llvm::StringRef, std::string>>
analysisOption(llvm::StringRef CheckName, ClangTidyCheck::OptionsView &Options,
               llvm::StringRef Name) {
  if (std::optional<llvm::StringRef> Text = Options.get(Name))
    return std::make_pair(*Text, (CheckName + "." + Name).str());
  std::string Global = ("Meshguard" + Name).str();
  if (std::optional<llvm::StringRef> Text = Options.getLocalOrGlobal(Global))
    return std::make_pair(*Text, Global);
  return std::nullopt;
}

template <typename T>
static T getLimit(ConfigReporter &Report, llvm::StringRef CheckName,
                  ClangTidyCheck::OptionsView &Options, llvm::StringRef Name,
                  T Default) {
  auto Given = analysisOption(CheckName, Options, Name);
  if (!Given)
    return Default;
  std::optional<llvm::StringRef> Text = Given->first;
  llvm::StringRef Trimmed = Text->trim();
  llvm::StringRef Digits = Trimmed;
  bool Negative = Digits.consume_front("-");
  if (!Negative)
    Digits.consume_front("+");
  const char *Problem = nullptr;
  std::int64_t Value = 0;
  if (Digits.empty() || !llvm::all_of(Digits, llvm::isDigit))
    Problem = "expected an integer";
  else if (Negative || Trimmed.getAsInteger(10, Value) || Value < 1)
    Problem = Negative || Digits.find_first_not_of('0') == llvm::StringRef::npos
                  ? "a limit must be positive"
                  : "out of range";
  else if (Value > MaxLimit)
    Problem = "out of range";
  if (!Problem)
    return static_cast<T>(Value);
  Report.report(("invalid configuration value '" + *Text + "' for option '" +
                 Given->second + "': " + Problem + " (limits are 1 to " +
                 std::to_string(MaxLimit) + "); using " +
                 std::to_string(Default))
                    .str());
  return Default;
}

AnalysisOptions::AnalysisOptions(ConfigReporter &Report,
                                 llvm::StringRef CheckName,
                                 ClangTidyCheck::OptionsView &Options) {
  analysis::AnalysisLimits Defaults;
  Limits.MaxSATConflicts = getLimit(
      Report, CheckName, Options, "MaxSATConflicts", Defaults.MaxSATConflicts);
  Limits.MaxBlockVisits = getLimit(Report, CheckName, Options, "MaxBlockVisits",
                                   Defaults.MaxBlockVisits);
  Limits.MaxFunctionElements =
      getLimit(Report, CheckName, Options, "MaxFunctionElements",
               Defaults.MaxFunctionElements);
  ReportSkipped =
      getBoolOption(Report, CheckName, Options, "ReportSkipped", false);
  if (auto Given = analysisOption(CheckName, Options, "ModelFile"))
    ModelFile = Given->first.str();
  PrintStats = getBoolOption(Report, CheckName, Options, "PrintStats", false);
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

bool getBoolOption(ConfigReporter &Report, llvm::StringRef CheckName,
                   ClangTidyCheck::OptionsView &Options, llvm::StringRef Name,
                   bool Default) {
  llvm::StringRef Value = Options.get(Name, Default ? "true" : "false");
  if (Value.equals_insensitive("true") || Value == "1")
    return true;
  if (Value.equals_insensitive("false") || Value == "0")
    return false;
  Report.report(("invalid configuration value '" + Value + "' for option '" +
                 CheckName + "." + Name + "': expected true or false; using " +
                 (Default ? "true" : "false"))
                    .str());
  return Default;
}

void storeBoolOption(ClangTidyOptions::OptionMap &Opts,
                     ClangTidyCheck::OptionsView &Options, llvm::StringRef Name,
                     bool Value) {
  Options.store(Opts, Name, Value ? "true" : "false");
}

/// The known local option name nearest to \p Name (case ignored), if one is
/// close enough to be a misspelling of it.
/// "a, b, c and d": the dtensor-* checks, for a message.
static std::string checkList() {
  std::string Out;
  const size_t N = std::size(DTensorCheckNames);
  for (size_t I = 0; I < N; ++I)
    Out += (I == 0       ? ""
            : I + 1 == N ? " and "
                         : ", ") +
           DTensorCheckNames[I].str();
  return Out;
}

static std::optional<std::string>
nearestOption(llvm::StringRef Name, const ClangTidyOptions::OptionMap &Known) {
  std::optional<std::string> Best;
  unsigned BestDistance = 3; // More edits than this is another name.
  for (const auto &Entry : Known) {
    llvm::StringRef Local = Entry.getKey().rsplit('.').second;
    unsigned D = llvm::StringRef(Name.lower()).edit_distance(Local.lower());
    if (D <= BestDistance) {
      BestDistance = D;
      Best = Local.str();
    }
  }
  return Best;
}

void reportUnknownOptions(ConfigReporter &Report, llvm::StringRef CheckName,
                          const ClangTidyContext &Context,
                          const ClangTidyOptions::OptionMap &Known) {
  // Which enabled dtensor-* check speaks for the ones that do not exist.
  llvm::StringRef Speaker;
  for (llvm::StringRef Name : DTensorCheckNames)
    if (Context.isCheckEnabled(Name)) {
      Speaker = Name;
      break;
    }
  llvm::SmallVector<llvm::StringRef, 8> KnownNames;
  for (const auto &Entry : Known)
    KnownNames.push_back(Entry.getKey().rsplit('.').second);
  llvm::sort(KnownNames);
  std::string KnownList = llvm::join(KnownNames, ", ");
  for (const auto &Entry : Context.getOptions().CheckOptions) {
    auto [Owner, Local] = Entry.getKey().rsplit('.');
    if (Local.empty() || !Owner.starts_with("dtensor-"))
      continue;
    if (Owner == CheckName) {
      if (Known.count(Entry.getKey()))
        continue;
      std::optional<std::string> Near = nearestOption(Local, Known);
      Report.report(("unknown option '" + Local + "' for check '" + CheckName +
                     "': it is ignored; " +
                     (Near ? "did you mean '" + *Near + "'?"
                           : "its options are: " + KnownList))
                        .str());
    } else if (CheckName == Speaker &&
               !llvm::is_contained(DTensorCheckNames, Owner)) {
      Report.report(("option '" + Entry.getKey() +
                     "' names no check: there is no check '" + Owner +
                     "' (the dtensor-* checks are " + checkList() +
                     "); it is ignored")
                        .str());
    }
  }
}

std::unique_ptr<analysis::ApiIndex> makeApiIndex(llvm::StringRef ModelFile,
                                                 ConfigReporter &Report) {
  analysis::ApiModel Model = analysis::ApiModel::builtin();
  if (!ModelFile.empty()) {
    llvm::Expected<analysis::ApiModel> User = analysis::loadApiModel(ModelFile);
    if (User) {
      dropConflictingEntries(*User, Model, Report);
      Model.append(*User);
    } else
      Report.report("invalid meshguard API model " +
                        llvm::toString(User.takeError()) +
                        "; using the built-in model only",
                    clang::DiagnosticIDs::Error);
  }
  return std::make_unique<analysis::ApiIndex>(std::move(Model));
}

} // namespace tidy
} // namespace meshguard
