//===--- SharedTU.h - What one TU's dtensor-* checks share ------*- C++ -*-===//
//
// The dtensor-* checks of one translation unit are separate objects; what
// they share is kept here, once per TU: the functions worth a look (one walk
// of the AST for all checks), the analysis engine (TUAnalysis, one
// per analysis configuration, normally one), the view of the summary
// database (its lookups are recorded once, whichever check made them) and
// the export file, written by whichever check finishes the TU last
// (clang-tidy ends the checks of a TU in no fixed order).
//
//===----------------------------------------------------------------------===//

#ifndef MESHGUARD_TIDY_SHAREDTU_H
#define MESHGUARD_TIDY_SHAREDTU_H

#include "TUFunctions.h"
#include "meshguard/Analysis/Engine/TUAnalysis.h"
#include "meshguard/Analysis/Summaries/SummaryDatabase.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringMap.h"
#include <memory>
#include <string>

namespace meshguard {
namespace tidy {

struct SharedTU {
  /// The database directory (empty: none found).
  std::string DatabaseDir;
  /// Where the TU's summaries go (empty: no export).
  std::string ExportDir;
  /// A check asks for collectives without a mesh on some path only
  /// (StrictMode); set while the checks register their matchers, before
  /// the engine is made.
  bool WantMaybeNoMesh = false;

  /// The database as this TU sees it, loaded on first use (from the
  /// process-wide cache); over an empty database when there is none, so
  /// that an export still records what the TU looked up.
  analysis::SummaryLookup &lookup();
  bool loaded() const { return Lookup != nullptr; }
  /// Whether the checks read or write summaries at all.
  bool usesDatabase() const {
    return !DatabaseDir.empty() || !ExportDir.empty();
  }
  /// The TU's main file (its own old database file is not a dependency);
  /// before the first lookup.
  void setMainFile(llvm::StringRef Path);

  /// The engine of the checks configured as \p Key says (API model and
  /// limits), made by \p Make on first use.
  analysis::TUAnalysis &
  engine(llvm::StringRef Key,
         llvm::function_ref<std::unique_ptr<analysis::TUAnalysis>()> Make);
  /// The engine for \p Key, if one was made.
  analysis::TUAnalysis *findEngine(llvm::StringRef Key) const;

  /// The TU's function definitions and lambdas, found by the first check
  /// that asks.
  TUFunctions &functions(clang::ASTContext &Ctx);

private:
  std::unique_ptr<TUFunctions> Functions;
  std::unique_ptr<analysis::SummaryLookup> Lookup;
  std::string MainFile;
  /// Declared after Lookup: destroyed before the lookup they read.
  llvm::StringMap<std::unique_ptr<analysis::TUAnalysis>> Engines;
};

/// Check \p Check joins what the checks of the TU \p Context (the check's
/// ClangTidyContext) is processing share; the first check of a TU creates it
/// with \p Make. (A check that joins a second time means a new TU whose
/// previous one never ended: it starts afresh.)
std::shared_ptr<SharedTU>
joinSharedTU(const void *Context, llvm::StringRef Check,
             llvm::function_ref<std::shared_ptr<SharedTU>()> Make);

/// Check \p Check is done with the TU; true when it is the last one (then it
/// writes the export).
bool leaveSharedTU(const void *Context, llvm::StringRef Check);

} // namespace tidy
} // namespace meshguard

#endif // MESHGUARD_TIDY_SHAREDTU_H
