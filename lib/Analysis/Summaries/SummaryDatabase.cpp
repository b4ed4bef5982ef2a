//===--- SummaryDatabase.cpp - Reading the summary database ---------------===//
//
// One JSON file per translation unit (Engine/SummaryExport.cpp writes them):
//
//   {"version": 2, "tu": "/src/dist_utils.cpp", "command": "...",
//    "files": [["/src/dist_utils.cpp", "<md5>"], ...],
//    "lookups": [["c:@F@h#...", "<hash of the entry it got, or empty>"]],
//    "functions": [{"usr": "c:@F@sync#...", "name": "sync", "hash": "...",
//                   "qname": "sync", "file": 0, "ret": "plain",
//                   "sinks": [{"p": 0, "entry": "meshguard::dist::...",
//                              "module": true, "at": [0, 12, 3]}],
//                   "pg": [...], "mixed": [{"p": 0, "dtensor": true,
//                                           "at": [0, 20, 10]}],
//                   "kept": [1],
//                   "coll": {"name": "meshguard::dist::all_reduce_",
//                            "at": [0, 12, 3],
//                            "p": 1, "ctl": [0, 14, 5]}}]}
//
// Each field of a function's facts ("ret", "sinks", ...) is one kind of
// fact, read by its own kind's file (FactKind.h), which says its format.
//
// Places ("at", "file") index "files". A malformed file is skipped whole
// (one problem each): a half-read file could drop the fact that makes
// another one moot.
//
//===----------------------------------------------------------------------===//

#include "meshguard/Analysis/Summaries/SummaryDatabase.h"
#include "Summaries/FactKind.h"
#include "clang/AST/Decl.h"
#include "clang/Index/USRGeneration.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MD5.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include <cstdlib>
#include <set>

namespace meshguard {
namespace analysis {

std::string summaryContentHash(llvm::StringRef Content) {
  llvm::MD5 Hash;
  Hash.update(Content);
  llvm::MD5::MD5Result Result;
  Hash.final(Result);
  return std::string(Result.digest().str());
}

std::string functionUSR(const clang::FunctionDecl &FD) {
  llvm::SmallString<128> USR;
  if (clang::index::generateUSRForDecl(&FD, USR))
    return "";
  return std::string(USR);
}

/// \p Configured, relative to the compile command's directory like its
/// other paths.
static std::string relativeToBuild(llvm::StringRef Configured,
                                   llvm::StringRef BuildDirectory) {
  llvm::SmallString<256> Dir(Configured);
  if (llvm::sys::path::is_relative(Dir) && !BuildDirectory.empty())
    llvm::sys::fs::make_absolute(BuildDirectory, Dir);
  return std::string(Dir);
}

std::string findSummaryExportDirectory(llvm::StringRef Configured,
                                       llvm::StringRef BuildDirectory) {
  if (Configured.empty())
    if (const char *FromEnvironment = std::getenv(SummaryExportVariable))
      Configured = FromEnvironment;
  return Configured.empty() ? "" : relativeToBuild(Configured, BuildDirectory);
}

std::string findSummaryDirectory(llvm::StringRef Configured,
                                 llvm::StringRef BuildDirectory,
                                 llvm::StringRef ExportDirectory) {
  if (Configured.empty())
    if (const char *FromEnvironment = std::getenv(SummaryDatabaseVariable))
      Configured = FromEnvironment;
  if (!Configured.empty())
    return relativeToBuild(Configured, BuildDirectory);
  if (!ExportDirectory.empty())
    return ExportDirectory.str();
  llvm::SmallString<256> Dir(BuildDirectory);
  if (Dir.empty() || llvm::sys::fs::make_absolute(Dir))
    return "";
  llvm::sys::path::remove_dots(Dir, /*remove_dot_dot=*/true);
  for (llvm::StringRef D = Dir; !D.empty();
       D = llvm::sys::path::parent_path(D)) {
    llvm::SmallString<256> Candidate(D);
    llvm::sys::path::append(Candidate, DefaultSummaryDirectory);
    if (llvm::sys::fs::is_directory(Candidate))
      return std::string(Candidate);
  }
  return "";
}

std::unique_ptr<SummaryDatabase> SummaryDatabase::load(llvm::StringRef Dir) {
  auto DB = std::make_unique<SummaryDatabase>();
  DB->Dir = Dir.str();
  if (!llvm::sys::fs::is_directory(Dir)) {
    if (llvm::sys::fs::exists(Dir))
      DB->Problems.push_back("'" + Dir.str() + "' is not a directory");
    return DB;
  }
  // Sorted: the same entry in two files (a TU compiled twice) resolves the
  // same way on every run.
  std::set<std::string> Files;
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC;
       It.increment(EC))
    if (llvm::sys::path::extension(It->path()) == ".json")
      Files.insert(It->path());
  if (EC)
    DB->Problems.push_back("cannot list '" + Dir.str() + "': " + EC.message());
  for (const std::string &Path : Files) {
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Buffer =
        llvm::MemoryBuffer::getFile(Path);
    if (!Buffer) {
      DB->Problems.push_back("cannot read '" + Path +
                             "': " + Buffer.getError().message());
      continue;
    }
    DB->addFile(Path, (*Buffer)->getBuffer());
  }
  return DB;
}

namespace {
/// Reads one exported file; the first problem stops it.
class FileReader {
public:
  explicit FileReader(llvm::json::Path::Root &Root) : Root(Root) {}

  /// Fills \p Out, \p USRs and \p Unit's TU and lookups.
  bool read(const llvm::json::Value &V, std::vector<StoredSummary> &Out,
            std::vector<std::string> &USRs, SummaryUnit &Unit) {
    llvm::json::Path P = Root;
    const llvm::json::Object *O = V.getAsObject();
    if (!O)
      return fail(P, "expected an object");
    std::optional<int64_t> Version = O->getInteger("version");
    if (!Version)
      return fail(P.field("version"), "expected the format version");
    if (*Version != SummaryFormatVersion)
      return fail(P.field("version"),
                  "another version of the format (rerun meshguard-run)");
    if (!stringPairs(*O, "files", P, "expected [path, hash]", Files) ||
        !stringPairs(*O, "lookups", P, "expected [usr, hash]", Unit.Lookups))
      return false;
    if (std::optional<llvm::StringRef> TU = O->getString("tu"))
      Unit.TU = TU->str();
    const llvm::json::Array *Functions = O->getArray("functions");
    if (!Functions)
      return fail(P.field("functions"), "expected an array");
    llvm::json::Path FunctionsPath = P.field("functions");
    for (size_t I = 0; I < Functions->size(); ++I) {
      llvm::json::Path FP = FunctionsPath.index(I);
      const llvm::json::Object *F = (*Functions)[I].getAsObject();
      if (!F)
        return fail(FP, "expected an object");
      StoredSummary S;
      std::optional<llvm::StringRef> USR = F->getString("usr");
      std::optional<llvm::StringRef> Name = F->getString("name");
      std::optional<llvm::StringRef> QName = F->getString("qname");
      std::optional<int64_t> File = F->getInteger("file");
      std::optional<llvm::StringRef> Hash = F->getString("hash");
      if (!USR || !Name || !QName || !File || !Hash)
        return fail(FP, "expected usr, name, qname, file and hash");
      if (*File < 0 || static_cast<size_t>(*File) >= Files.size())
        return fail(FP.field("file"), "not an index of 'files'");
      S.Name = Name->str();
      S.QualifiedName = QName->str();
      S.File = Files[*File].first;
      S.FileHash = Files[*File].second;
      S.Hash = Hash->str();
      PlaceReader Places(Files, S.Name, S.File);
      for (const FactKind *Kind : factKinds())
        if (const llvm::json::Value *Facts = F->get(Kind->key()))
          if (!Kind->read(*Facts, FP.field(Kind->key()), Places, S))
            return false;
      USRs.push_back(USR->str());
      Out.push_back(std::move(S));
    }
    return true;
  }

private:
  /// The array \p Key of \p O, of [string, string] pairs ("files",
  /// "lookups").
  bool stringPairs(const llvm::json::Object &O, llvm::StringRef Key,
                   llvm::json::Path P, llvm::StringLiteral Expected,
                   std::vector<std::pair<std::string, std::string>> &Out) {
    const llvm::json::Array *List = O.getArray(Key);
    if (!List)
      return fail(P.field(Key), "expected an array");
    for (size_t I = 0; I < List->size(); ++I) {
      const llvm::json::Array *Pair = (*List)[I].getAsArray();
      std::optional<llvm::StringRef> First, Second;
      if (Pair && Pair->size() == 2) {
        First = (*Pair)[0].getAsString();
        Second = (*Pair)[1].getAsString();
      }
      if (!First || !Second)
        return fail(P.field(Key).index(I), Expected);
      Out.emplace_back(First->str(), Second->str());
    }
    return true;
  }

  bool fail(llvm::json::Path P, llvm::StringLiteral Message) {
    P.report(Message);
    return false;
  }

  llvm::json::Path::Root &Root;
  std::vector<std::pair<std::string, std::string>> Files;
};
} // namespace

bool SummaryDatabase::addFile(llvm::StringRef Path, llvm::StringRef Text) {
  llvm::Expected<llvm::json::Value> V = llvm::json::parse(Text);
  if (!V) {
    Problems.push_back("'" + Path.str() + "' is not JSON (" +
                       llvm::toString(V.takeError()) + "); ignored");
    return false;
  }
  llvm::json::Path::Root Root("summary");
  std::vector<StoredSummary> Read;
  std::vector<std::string> USRs;
  SummaryUnit Unit{Path.str(), "", {}};
  if (!FileReader(Root).read(*V, Read, USRs, Unit)) {
    Problems.push_back("'" + Path.str() + "' is malformed (" +
                       llvm::toString(Root.getError()) + "); ignored");
    return false;
  }
  for (size_t I = 0; I < Read.size(); ++I) {
    Read[I].Unit = Units.size();
    Entries.try_emplace(USRs[I], std::move(Read[I]));
  }
  Units.push_back(std::move(Unit));
  return true;
}

const StoredSummary *SummaryDatabase::find(llvm::StringRef USR) const {
  auto It = Entries.find(USR);
  return It == Entries.end() ? nullptr : &It->second;
}

std::vector<std::string>
SummaryDatabase::namesWith(SummaryFactKind Kind) const {
  std::vector<std::string> Names;
  for (const FactKind *K : factKinds())
    if (K->checkKind() == Kind)
      for (const auto &E : Entries)
        if (K->has(E.second))
          Names.push_back(E.second.QualifiedName);
  return Names;
}

} // namespace analysis
} // namespace meshguard
