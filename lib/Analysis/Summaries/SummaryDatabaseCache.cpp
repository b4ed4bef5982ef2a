//===--- SummaryDatabaseCache.cpp - One database load per process ---------===//
//
// The checks of every TU (three of them read the database) and clangd's
// worker threads share one loaded database per directory. It is loaded
// again only when the directory's *.json files changed (another name, size
// or time): a meshguard-tidy run that exports as it goes, or meshguard-run
// rewriting the database while clangd is open. A loaded database is never
// changed, so sharing it needs no lock; the map of them has one.
//
//===----------------------------------------------------------------------===//

#include "meshguard/Analysis/Summaries/SummaryDatabase.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include <mutex>
#include <tuple>

namespace meshguard {
namespace analysis {

namespace {
/// What the directory's summary files look like now.
using Listing =
    std::vector<std::tuple<std::string, uint64_t, llvm::sys::TimePoint<>>>;

Listing listing(llvm::StringRef Dir) {
  Listing L;
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC;
       It.increment(EC)) {
    if (llvm::sys::path::extension(It->path()) != ".json")
      continue;
    llvm::sys::fs::file_status Status;
    if (!llvm::sys::fs::status(It->path(), Status))
      L.emplace_back(It->path(), Status.getSize(),
                     Status.getLastModificationTime());
    else
      L.emplace_back(It->path(), 0, llvm::sys::TimePoint<>());
  }
  llvm::sort(L);
  return L;
}

struct Loaded {
  Listing Files;
  bool Exists = false;
  std::shared_ptr<const SummaryDatabase> DB;
};
} // namespace

std::shared_ptr<const SummaryDatabase>
loadSharedSummaryDatabase(llvm::StringRef Dir) {
  static std::mutex Lock;
  static llvm::StringMap<Loaded> Cache;
  bool Exists = llvm::sys::fs::exists(Dir);
  Listing Now = Exists ? listing(Dir) : Listing();
  // Held while loading: another thread asking for the same directory
  // waits for this load instead of doing its own.
  std::lock_guard<std::mutex> Guard(Lock);
  Loaded &Entry = Cache[Dir];
  if (!Entry.DB || Entry.Exists != Exists || Entry.Files != Now) {
    Entry.DB = SummaryDatabase::load(Dir);
    Entry.Files = std::move(Now);
    Entry.Exists = Exists;
  }
  return Entry.DB;
}

} // namespace analysis
} // namespace meshguard
