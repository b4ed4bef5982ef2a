//===--- SummaryDatabase.h - Function summaries across TUs ------*- C++ -*-===//
//
// The whole-program summaries: a first pass (meshguard-tidy --summarize)
// writes, per translation unit, one JSON file with the summaries of the
// functions it defines (Engine/SummaryExport.cpp); the checks read the
// directory back and use an entry for a callee with no body in their TU, keyed
// by USR (SummaryImport.cpp). AST pointers become facts that survive the TU:
// the callee-side place (file, line, column) and the model entry's name. The
// summaries may themselves import entries of other files (a chain of
// helpers across several files); each file records what it looked up and
// the hash of what it got. An entry is used only while the file that
// defines the function still has the hash recorded with it and every lookup
// of its file still gets the same answer (SummaryLookup): a stale entry is
// "unknown", never a finding. docs/tools/whole-program.md describes the
// format and the workflow.
//
//===----------------------------------------------------------------------===//

#ifndef MESHGUARD_ANALYSIS_SUMMARYDATABASE_H
#define MESHGUARD_ANALYSIS_SUMMARYDATABASE_H

#include "meshguard/Analysis/Provenance/FunctionSummary.h"
#include "meshguard/Analysis/Provenance/Provenance.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace clang {
class ASTContext;
class FunctionDecl;
class SourceManager;
} // namespace clang

namespace meshguard {
namespace analysis {

class ApiIndex;
class SummaryProvider;

/// The format's version; a file of another version is skipped with a
/// problem. 2: entry hashes and the file's lookups.
inline constexpr int SummaryFormatVersion = 2;
/// The directory meshguard-run writes and the checks look for by default.
inline constexpr llvm::StringLiteral DefaultSummaryDirectory =
    "meshguard-summaries";

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

struct StoredCheckpointSink {
  unsigned Param = 0;
  bool Load = false;
  ExternalSite At;
};

/// The first collective a function performs (itself or through helpers of
/// its file), for dtensor-rank-divergent-collective: a call of it counts as
/// that collective.
struct StoredCollective {
  /// The collective's qualified name, e.g. "meshguard::dist::all_reduce_".
  std::string Name;
  ExternalSite At;
  /// The parameter that decides whether a collective runs (`if (doit)
  /// barrier();`), and where that collective is.
  std::optional<unsigned> Param;
  ExternalSite ControlledAt;
};

/// What a function returns, as the placement checks see it (PlacementScan.h):
/// a DTensor's placements, or one rank's share of a Partial value.
struct StoredPlacementReturn {
  /// One rank's share of a Partial value (a plain tensor); else a DTensor.
  bool PartialLocal = false;
  /// DTensor: bit d, may be Shard(d) (0x80: some unknown dim); may be
  /// Partial; the number of mesh dims its placements were spelled for (0:
  /// unknown).
  unsigned ShardDims = 0;
  bool MayPartial = false;
  unsigned MeshDims = 0;
  /// The parameter whose argument it returns, facts and all; with
  /// LocalOfPass, the argument's to_local() (a helper that wraps it).
  std::optional<unsigned> PassThrough;
  bool LocalOfPass = false;
  /// Where it was made local, became Partial, got its placements, was put
  /// on its mesh.
  std::optional<ExternalSite> ToLocal, Origin, Placed, Mesh;
};

/// A function's placement facts: what it returns, the parameters it uses
/// as full values and the ones it claims are replicas (with where), for
/// the placement checks and dtensor-unverified-replicate.
struct StoredPlacements {
  std::optional<StoredPlacementReturn> Return;
  std::vector<std::pair<unsigned, ExternalSite>> FullUses;
  /// The parameters it wraps as replicas without run_check (from_local,
  /// every placement Replicate), and where.
  std::vector<std::pair<unsigned, ExternalSite>> Replicas;
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
  std::vector<StoredCheckpointSink> CheckpointSinks;
  std::vector<unsigned> KeptModules;
  std::optional<StoredCollective> Collective;
  std::optional<StoredPlacements> Placements;
  /// MD5 of the entry's facts (what a caller's result depends on).
  std::string Hash;
  /// The database file (TU) it comes from: SummaryDatabase::unit().
  unsigned Unit = 0;
};

/// A USR a TU asked the database for, and the hash of the entry it got
/// ("" when it got no usable one).
using SummaryLookupRecord = std::pair<std::string, std::string>;

/// One file of the database: one TU's summaries.
struct SummaryUnit {
  std::string Path;
  /// The TU's main file ("tu").
  std::string TU;
  /// What the TU looked up when it was summarised.
  std::vector<SummaryLookupRecord> Lookups;
};

/// Which facts make a call worth a check's attention.
enum class SummaryFactKind {
  MeshSinks,
  ProcessGroupSinks,
  MixedOpSinks,
  Collectives,
  Placements,
  CheckpointSinks
};

class SummaryDatabase {
public:
  /// Reads every *.json file of \p Dir. A file that cannot be read or
  /// parsed, or has another version, is skipped and listed in problems().
  /// A missing directory gives an empty database and no problem.
  static std::unique_ptr<SummaryDatabase> load(llvm::StringRef Dir);

  /// The entry for \p Usr as stored, current or not (SummaryLookup says
  /// whether it may be used).
  const StoredSummary *find(llvm::StringRef Usr) const;
  const SummaryUnit &unit(unsigned I) const { return Units[I]; }
  size_t units() const { return Units.size(); }

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
  std::vector<SummaryUnit> Units;
  std::vector<std::string> Problems;
};

/// The database as one TU sees it (not shared between TUs or threads; the
/// database it reads is). An entry is usable when the file that defines it
/// still has the recorded MD5 and every lookup recorded in its unit still
/// resolves to the recorded hash, recursively (memoized; a unit reached
/// again while it is being checked, a cycle among files, counts as
/// consistent). Every lookup is recorded, for the TU's own export.
class SummaryLookup {
public:
  explicit SummaryLookup(std::shared_ptr<const SummaryDatabase> DB);

  /// \p TU (a main file) is the TU asking; call before the first lookup.
  /// Its own old database file counts as consistent: it is being rewritten,
  /// and another file's entry that depends on it (files calling each other)
  /// must not turn unknown only because this TU's previous run looked up
  /// entries that have changed since.
  void setOwnTU(llvm::StringRef TU);

  /// The usable entry for \p Usr, or null; recorded either way.
  const StoredSummary *lookup(llvm::StringRef Usr);
  /// Every lookup so far, sorted by USR.
  std::vector<SummaryLookupRecord> recorded() const;
  const SummaryDatabase &database() const { return *DB; }

private:
  const StoredSummary *resolve(llvm::StringRef Usr);
  bool unitConsistent(unsigned Unit);
  bool fileCurrent(llvm::StringRef Path, llvm::StringRef Hash);

  std::shared_ptr<const SummaryDatabase> DB;
  std::map<std::string, std::string> Recorded;
  /// Per unit: 0 not checked, 1 being checked, 2 consistent, 3 stale.
  std::vector<unsigned char> UnitState;
  /// The content hash of each file asked about in this TU.
  llvm::StringMap<std::string> FileHashes;
};

/// The database of \p Dir, loaded once per process and shared (clangd's
/// worker threads, the TUs of one meshguard-tidy run); loaded again when the
/// directory's listing or one of its files' size or time changed.
std::shared_ptr<const SummaryDatabase>
loadSharedSummaryDatabase(llvm::StringRef Dir);

/// The MD5 of the file at \p Path now ("" when unreadable); computed once
/// per process while its size and time stay the same (thread-safe).
std::string currentContentHash(llvm::StringRef Path);

/// The name of a TU's file in the database: the first 16 hex digits of the
/// MD5 of \p TUPath (absolute, normalised), ".json".
std::string summaryFileName(llvm::StringRef TUPath);

/// Writes \p Text to \p Path through a temporary file and a rename, so that
/// a reader (a check running at the same time) never sees half a file.
llvm::Error writeFileAtomically(llvm::StringRef Path, llvm::StringRef Text);

/// The hash the database records for a file's content (MD5, hex).
std::string summaryContentHash(llvm::StringRef Content);

/// The environment variable naming the database (meshguard-run sets it).
inline constexpr const char *SummaryDatabaseVariable =
    "MESHGUARD_SUMMARY_DATABASE";
/// The environment variable naming the directory a check run writes its
/// TU's summaries to (the global option MeshguardSummaryExport too).
inline constexpr const char *SummaryExportVariable = "MESHGUARD_SUMMARY_EXPORT";
/// The environment variable recorded as a check run's "command".
inline constexpr const char *SummaryTagVariable = "MESHGUARD_SUMMARY_TAG";

/// The summary database for a TU: \p Configured when not empty (relative to
/// \p BuildDirectory), else $MESHGUARD_SUMMARY_DATABASE when set, else
/// \p ExportDirectory when not empty (a run that exports reads what it and
/// the others wrote), else the first "meshguard-summaries" directory in
/// \p BuildDirectory or one of its parents. Empty when there is none.
std::string findSummaryDirectory(llvm::StringRef Configured,
                                 llvm::StringRef BuildDirectory,
                                 llvm::StringRef ExportDirectory = "");

/// The export directory of a TU: \p Configured (MeshguardSummaryExport) when
/// not empty, else $MESHGUARD_SUMMARY_EXPORT; relative to \p BuildDirectory.
/// Empty: no export.
std::string findSummaryExportDirectory(llvm::StringRef Configured,
                                       llvm::StringRef BuildDirectory);

/// The USR of \p FD (empty if it has none).
std::string functionUSR(const clang::FunctionDecl &FD);

/// Whether the API model describes \p FD (a source, a collective, an op):
/// no summary of another file is about it, so it is never looked up.
bool isModelFunction(const ApiIndex &Index, const clang::FunctionDecl &FD);

/// The usable entry of \p DB for \p FD, a function without a body in this
/// TU; null when there is no database, \p FD is a template pattern, is
/// declared in a system header or is the API model's, or its entry is
/// missing or stale (unknown, never a finding).
const StoredSummary *lookupCallee(SummaryLookup *DB,
                                  const clang::FunctionDecl &FD,
                                  const ApiIndex &Index);

/// The absolute, normalised path of the main file ("" if none).
std::string mainFilePath(const clang::SourceManager &SM);
std::string mainFilePath(const clang::ASTContext &Ctx);

} // namespace analysis
} // namespace meshguard

#endif // MESHGUARD_ANALYSIS_SUMMARYDATABASE_H
