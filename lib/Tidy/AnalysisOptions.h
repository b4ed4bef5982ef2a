//===--- AnalysisOptions.h - Options every dtensor-* check shares -*- C++ -*-===//
//
// The analysis limits and the API model are check options; every dtensor-*
// check reads and stores them the same way.
//
//===----------------------------------------------------------------------===//

#ifndef MESHGUARD_TIDY_ANALYSISOPTIONS_H
#define MESHGUARD_TIDY_ANALYSISOPTIONS_H

#include "meshguard/Analysis/ApiIndex.h"
#include "meshguard/Analysis/FunctionAnalysis.h"
#include "clang-tidy/ClangTidyCheck.h"
#include <memory>

namespace meshguard {
namespace tidy {

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
  AnalysisOptions(clang::tidy::ClangTidyCheck &Check, llvm::StringRef CheckName,
                  clang::tidy::ClangTidyCheck::OptionsView &Options);
  void store(clang::tidy::ClangTidyOptions::OptionMap &Opts,
             clang::tidy::ClangTidyCheck::OptionsView &Options) const;
};

/// Boolean options, read and written as text. (ClangTidyCheck's get<bool> is
/// an explicit specialization whose mangled name differs between GCC and
/// Clang, so a GCC-built plugin could not load into a Clang-built clang-tidy.)
/// "true"/"false"/"1"/"0" (any case); anything else is reported through
/// \p Check and gives \p Default.
bool getBoolOption(clang::tidy::ClangTidyCheck &Check, llvm::StringRef CheckName,
                   clang::tidy::ClangTidyCheck::OptionsView &Options,
                   llvm::StringRef Name, bool Default);
void storeBoolOption(clang::tidy::ClangTidyOptions::OptionMap &Opts,
                     clang::tidy::ClangTidyCheck::OptionsView &Options,
                     llvm::StringRef Name, bool Value);

/// The API model the checks use: the built-in table, extended by
/// \p ModelFile when one is named. A file that cannot be read or parsed is
/// reported through \p Check as a configuration error (with line and
/// column) and ignored.
std::unique_ptr<analysis::ApiIndex>
makeApiIndex(llvm::StringRef ModelFile, clang::tidy::ClangTidyCheck &Check);

} // namespace tidy
} // namespace meshguard

#endif // MESHGUARD_TIDY_ANALYSISOPTIONS_H
