//===--- SummaryDatabase.h - Function summaries across TUs ------*- C++ -*-===//
//
// The whole-program summaries: a first pass (meshguard-tidy --summarize)
// writes, per translation unit, one JSON file with the summaries of the
// functions it defines (SummaryExport.cpp); the checks read the directory
// back and use an entry for a callee with no body in their TU, keyed by USR
// (SummaryImport.cpp). AST pointers become facts that survive the TU: the
// callee-side place (file, line, column) and the model entry's name. An entry
// is used only while the file that defines the function still has the hash
// recorded with it: a stale entry is "unknown", never a finding.
// docs/tools/whole-program.md describes the format and the workflow.
//
//===----------------------------------------------------------------------===//

#ifndef MESHGUARD_ANALYSIS_SUMMARYDATABASE_H
#define MESHGUARD_ANALYSIS_SUMMARYDATABASE_H

#include "meshguard/Analysis/Provenance.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace clang {
class ASTContext;
class FunctionDecl;
} // namespace clang

namespace meshguard {
namespace analysis {

class ApiIndex;
class SummaryProvider;

/// The format's version; a file of another version is skipped with a
/// problem.
inline constexpr int SummaryFormatVersion = 1;
/// The directory meshguard-run writes and the checks look for by default.
inline constexpr llvm::StringLiteral DefaultSummaryDirectory =
    "meshguard-summaries";

/// A place inside a summarised function of another translation unit (the
/// collective or tensor op a fact is about), for notes.
struct ExternalSite {
  std::string File;
  unsigned Line = 0;
  unsigned Column = 0;
  /// The summarised function the caller calls (for "inside 'sync' ...").
  std::string Function;
};

struct StoredSink {
  unsigned Param = 0;
  bool IsModule = false;
  /// The model entry's qualified function name (MeshCollectiveEntry or
  /// ProcessGroupCollectiveEntry::Function).
  std::string Entry;
  ExternalSite At;
};

struct StoredMixedOpSink {
  unsigned Param = 0;
  bool AsDTensor = false;
  ExternalSite At;
};

/// The first collective a function performs (itself or through helpers of
/// its file), for dtensor-rank-divergent-collective: a call of it counts as
/// that collective.
struct StoredCollective {
  /// The collective's qualified name, e.g. "meshguard::dist::all_reduce_".
  std::string Name;
  ExternalSite At;
};

struct StoredSummary {
  std::string Name;
  std::string QualifiedName;
  /// The file that defines the function, and its MD5 when summarised.
  std::string File;
  std::string FileHash;
  Provenance Return = Provenance::Unknown;
  std::vector<StoredSink> Sinks;
  std::vector<StoredSink> ProcessGroupSinks;
  std::vector<StoredMixedOpSink> MixedOpSinks;
  std::vector<unsigned> KeptModules;
  std::optional<StoredCollective> Collective;
};

/// Which facts make a call worth a check's attention.
enum class SummaryFactKind {
  MeshSinks,
  ProcessGroupSinks,
  MixedOpSinks,
  Collectives
};

class SummaryDatabase {
public:
  /// Reads every *.json file of \p Dir. A file that cannot be read or
  /// parsed, or has another version, is skipped and listed in problems().
  /// A missing directory gives an empty database and no problem.
  static std::unique_ptr<SummaryDatabase> load(llvm::StringRef Dir);

  /// The entry for \p Usr, if the database has one and the file that
  /// defines it still has the recorded hash (checked once per file).
  const StoredSummary *lookup(llvm::StringRef Usr) const;

  /// Qualified names of the functions with facts of \p Kind (a check
  /// analyses the functions that call them).
  std::vector<std::string> namesWith(SummaryFactKind Kind) const;

  const std::vector<std::string> &problems() const { return Problems; }
  size_t size() const { return Entries.size(); }
  llvm::StringRef directory() const { return Dir; }

  /// Reads one exported file into this database; false (and a problem)
  /// when it is malformed.
  bool addFile(llvm::StringRef Path, llvm::StringRef Text);

private:
  std::string Dir;
  llvm::StringMap<StoredSummary> Entries;
  std::vector<std::string> Problems;
  /// File path -> whether its content still has the recorded hash.
  mutable llvm::StringMap<std::string> CurrentHashes;
};

/// The hash the database records for a file's content (MD5, hex).
std::string summaryContentHash(llvm::StringRef Content);

/// The environment variable naming the database (meshguard-run sets it).
inline constexpr const char *SummaryDatabaseVariable =
    "MESHGUARD_SUMMARY_DATABASE";

/// The summary database for a TU: \p Configured when not empty (relative to
/// \p BuildDirectory), else $MESHGUARD_SUMMARY_DATABASE when set, else the
/// first "meshguard-summaries" directory in \p BuildDirectory or one of its
/// parents. Empty when there is none.
std::string findSummaryDirectory(llvm::StringRef Configured,
                                 llvm::StringRef BuildDirectory);

/// The USR of \p FD (empty if it has none).
std::string functionUSR(const clang::FunctionDecl &FD);

/// The JSON text of the summaries of the functions the main file of \p Ctx
/// defines (with external linkage), computed by \p Summaries. \p Command
/// is recorded as is (meshguard-run puts the hash of the compile command
/// there to know when an entry can be reused).
std::string exportSummaries(clang::ASTContext &Ctx, SummaryProvider &Summaries,
                            llvm::StringRef Command);

} // namespace analysis
} // namespace meshguard

#endif // MESHGUARD_ANALYSIS_SUMMARYDATABASE_H
