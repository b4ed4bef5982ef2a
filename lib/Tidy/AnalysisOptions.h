//===--- AnalysisOptions.h - Options every dtensor-* check shares -*- C++
//-*-===//
//
// The analysis limits and the API model are check options; every dtensor-*
// check reads and stores them the same way. Each may also be given once for
// all of them as a global option, named with "Meshguard" in front
// (MeshguardMaxSATConflicts, MeshguardModelFile): checks configured alike
// share one analysis per translation unit.
//
//===----------------------------------------------------------------------===//

#ifndef MESHGUARD_TIDY_ANALYSISOPTIONS_H
#define MESHGUARD_TIDY_ANALYSISOPTIONS_H

#include "clang-tidy/ClangTidyCheck.h"
#include "meshguard/Analysis/Api/ApiIndex.h"
#include "meshguard/Analysis/Provenance/FunctionAnalysis.h"
#include <memory>
#include <string>
#include <vector>

namespace meshguard {
namespace tidy {

/// Where configuration problems go: clang-tidy prints them as
/// [clang-tidy-config]. clangd drops diagnostics without a location, so
/// where the host wants self-contained diagnostics (clangd sets that on its
/// ClangTidyContext; the clang-tidy CLI does not) the checks repeat them at
/// the top of the main file (DTensorCheckBase).
class ConfigReporter {
public:
  explicit ConfigReporter(clang::tidy::ClangTidyCheck &Check) : Check(Check) {}
  void
  report(std::string Text,
         clang::DiagnosticIDs::Level Level = clang::DiagnosticIDs::Warning);
  struct Problem {
    std::string Text;
    clang::DiagnosticIDs::Level Level;
  };
  std::vector<Problem> Problems;

private:
  clang::tidy::ClangTidyCheck &Check;
};

struct AnalysisOptions {
  analysis::AnalysisLimits Limits;
  /// Emit a remark for each function the analysis skipped (hit a limit).
  bool ReportSkipped = false;
  /// Print, at the end of each TU, how many functions were analysed and how
  /// many were skipped and why (to stderr).
  bool PrintStats = false;
  /// A YAML API model extending the built-in one (docs/checks/api-model.md).
  std::string ModelFile;

  /// Reads the options; a malformed one is reported through \p Check and
  /// its default used.
  AnalysisOptions(ConfigReporter &Report, llvm::StringRef CheckName,
                  clang::tidy::ClangTidyCheck::OptionsView &Options);
  void store(clang::tidy::ClangTidyOptions::OptionMap &Opts,
             clang::tidy::ClangTidyCheck::OptionsView &Options) const;
};

/// Boolean options, read and written as text. (ClangTidyCheck's get<bool> is
/// an explicit specialization whose mangled name differs between GCC and
/// Clang, so a GCC-built plugin could not load into a Clang-built clang-tidy.)
/// "true"/"false"/"1"/"0" (any case); anything else is reported through
/// \p Report and gives \p Default.
bool getBoolOption(ConfigReporter &Report, llvm::StringRef CheckName,
                   clang::tidy::ClangTidyCheck::OptionsView &Options,
                   llvm::StringRef Name, bool Default);
void storeBoolOption(clang::tidy::ClangTidyOptions::OptionMap &Opts,
                     clang::tidy::ClangTidyCheck::OptionsView &Options,
                     llvm::StringRef Name, bool Value);

/// The dtensor-* checks, for option names set on a check that does not
/// exist: the names the module registers (DTensorChecks.def), in its order.
inline constexpr llvm::StringLiteral DTensorCheckNames[] = {
#define DTENSOR_CHECK(Class, Name) Name,
#include "DTensorChecks.def"
};

/// Warns, through \p Check, about every option of the configuration that
/// names \p CheckName but none of its options (\p Known, as storeOptions
/// writes them), with the nearest known name; and, when \p CheckName is the
/// first enabled dtensor-* check, about options of dtensor-* checks that do
/// not exist. (clang-tidy says so only under --verify-config, and clangd
/// never: a misspelt limit or mode was silently the default.)
void reportUnknownOptions(
    ConfigReporter &Report, llvm::StringRef CheckName,
    const clang::tidy::ClangTidyContext &Context,
    const clang::tidy::ClangTidyOptions::OptionMap &Known);

/// The API model the checks use: the built-in table, extended by
/// \p ModelFile when one is named. A file that cannot be read or parsed is
/// reported through \p Check as a configuration error (with line and
/// column) and ignored.
std::unique_ptr<analysis::ApiIndex> makeApiIndex(llvm::StringRef ModelFile,
                                                 ConfigReporter &Report);

} // namespace tidy
} // namespace meshguard

#endif // MESHGUARD_TIDY_ANALYSISOPTIONS_H
