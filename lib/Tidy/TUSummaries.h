//===--- TUSummaries.h - The summaries one TU's checks share ---*- C++ -*-===//
//
// The dtensor-* checks of one translation unit are separate objects, but
// the whole-program summaries are per TU: one view of the database (its
// lookups are recorded once, whichever check made them) and one export
// file, written by whichever check finishes the TU last (clang-tidy ends
// the checks of a TU in no fixed order).
//
//===----------------------------------------------------------------------===//

#ifndef MESHGUARD_TIDY_TUSUMMARIES_H
#define MESHGUARD_TIDY_TUSUMMARIES_H

#include "meshguard/Analysis/SummaryDatabase.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include <memory>
#include <string>

namespace meshguard {
namespace tidy {

struct TUSummaries {
  /// The database directory (empty: none found).
  std::string DatabaseDir;
  /// Where the TU's summaries go (empty: no export).
  std::string ExportDir;

  /// The database as this TU sees it, loaded on first use (from the
  /// process-wide cache); over an empty database when there is none, so
  /// that an export still records what the TU looked up.
  analysis::SummaryLookup &lookup();
  bool loaded() const { return Lookup != nullptr; }
  /// The TU's main file (its own old database file is not a dependency);
  /// before the first lookup.
  void setMainFile(llvm::StringRef Path);

private:
  std::unique_ptr<analysis::SummaryLookup> Lookup;
  std::string MainFile;
};

/// Check \p Check joins the summaries of the TU \p Context (the check's
/// ClangTidyContext) is processing; the first check of a TU creates them
/// with \p Make. (A check that joins a second time means a new TU whose
/// previous one never ended: it starts afresh.)
std::shared_ptr<TUSummaries>
joinTUSummaries(const void *Context, llvm::StringRef Check,
                llvm::function_ref<std::shared_ptr<TUSummaries>()> Make);

/// Check \p Check is done with the TU; true when it is the last one (then it
/// writes the export).
bool leaveTUSummaries(const void *Context, llvm::StringRef Check);

} // namespace tidy
} // namespace meshguard

#endif // MESHGUARD_TIDY_TUSUMMARIES_H
