//===--- SummaryLookup.cpp - Which database entries a TU may use ----------===//
//
// An entry of another TU is used only while what it was computed from is
// unchanged: the file that defines the function (its MD5), and every entry
// that TU itself imported (the hashes its "lookups" recorded). A helper
// whose own helper in a third file changed is then "unknown" until its file
// is summarised again, never a finding from the old facts.
//
//===----------------------------------------------------------------------===//

#include "meshguard/Analysis/Summaries/SummaryDatabase.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include <mutex>

namespace meshguard {
namespace analysis {

namespace {
enum UnitState : unsigned char { NotChecked, Checking, Consistent, Stale };

/// A file's MD5 with the size and time it had when hashed.
struct HashedFile {
  uint64_t Size = 0;
  llvm::sys::TimePoint<> Time;
  std::string Hash;
};
} // namespace

std::string currentContentHash(llvm::StringRef Path) {
  static std::mutex Lock;
  static llvm::StringMap<HashedFile> Known;
  llvm::sys::fs::file_status Status;
  if (llvm::sys::fs::status(Path, Status) ||
      !llvm::sys::fs::is_regular_file(Status))
    return ""; // Unreadable: never current.
  {
    std::lock_guard<std::mutex> Guard(Lock);
    auto It = Known.find(Path);
    if (It != Known.end() && It->second.Size == Status.getSize() &&
        It->second.Time == Status.getLastModificationTime())
      return It->second.Hash;
  }
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Buffer =
      llvm::MemoryBuffer::getFile(Path);
  if (!Buffer)
    return "";
  std::string Hash = summaryContentHash((*Buffer)->getBuffer());
  std::lock_guard<std::mutex> Guard(Lock);
  Known[Path] = {Status.getSize(), Status.getLastModificationTime(), Hash};
  return Hash;
}

SummaryLookup::SummaryLookup(std::shared_ptr<const SummaryDatabase> DB)
    : DB(std::move(DB)), UnitState(this->DB->units(), NotChecked) {}

void SummaryLookup::setOwnTU(llvm::StringRef TU) {
  assert(Recorded.empty() && "the own TU is set before the first lookup");
  if (TU.empty())
    return;
  for (unsigned I = 0; I < UnitState.size(); ++I)
    if (DB->unit(I).TU == TU)
      UnitState[I] = Consistent;
}

const StoredSummary *SummaryLookup::lookup(llvm::StringRef USR) {
  const StoredSummary *S = resolve(USR);
  Recorded.emplace(USR.str(), S ? S->Hash : "");
  return S;
}

std::vector<SummaryLookupRecord> SummaryLookup::recorded() const {
  return {Recorded.begin(), Recorded.end()};
}

const StoredSummary *SummaryLookup::resolve(llvm::StringRef USR) {
  const StoredSummary *S = DB->find(USR);
  if (!S || !fileCurrent(S->File, S->FileHash) || !unitConsistent(S->Unit))
    return nullptr;
  return S;
}

bool SummaryLookup::unitConsistent(unsigned Unit) {
  if (UnitState[Unit] == Checking)
    return true; // A cycle among files: consistent.
  if (UnitState[Unit] != NotChecked)
    return UnitState[Unit] == Consistent;
  UnitState[Unit] = Checking;
  bool Same = true;
  for (const SummaryLookupRecord &L : DB->unit(Unit).Lookups) {
    const StoredSummary *Now = resolve(L.first);
    if ((Now ? llvm::StringRef(Now->Hash) : "") != L.second) {
      Same = false;
      break;
    }
  }
  UnitState[Unit] = Same ? Consistent : Stale;
  return Same;
}

bool SummaryLookup::fileCurrent(llvm::StringRef Path, llvm::StringRef Hash) {
  auto It = FileHashes.find(Path);
  if (It == FileHashes.end())
    It = FileHashes.try_emplace(Path, currentContentHash(Path)).first;
  return !It->second.empty() && It->second == Hash;
}

} // namespace analysis
} // namespace meshguard
