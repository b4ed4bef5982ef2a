//===--- TUSummaries.cpp - The summaries one TU's checks share ----------===//
//
// Keyed by the ClangTidyContext: one per clangd build (each on its own
// worker thread), one per meshguard-tidy run whose TUs come one after
// another. The map is the only state shared between threads.
//
//===----------------------------------------------------------------------===//

#include "TUSummaries.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringSet.h"
#include <mutex>

namespace meshguard {
namespace tidy {

analysis::SummaryLookup &TUSummaries::lookup() {
  if (!Lookup) {
    Lookup = std::make_unique<analysis::SummaryLookup>(
        DatabaseDir.empty()
            ? std::make_shared<const analysis::SummaryDatabase>()
            : analysis::loadSharedSummaryDatabase(DatabaseDir));
    Lookup->setOwnTU(MainFile);
  }
  return *Lookup;
}

void TUSummaries::setMainFile(llvm::StringRef Path) {
  if (MainFile == Path)
    return;
  MainFile = Path.str();
  if (Lookup)
    Lookup->setOwnTU(MainFile);
}

namespace {
struct Slot {
  std::shared_ptr<TUSummaries> Shared;
  llvm::StringSet<> Joined;
  unsigned Left = 0;
};
std::mutex Lock;
llvm::DenseMap<const void *, Slot> &slots() {
  static llvm::DenseMap<const void *, Slot> Slots;
  return Slots;
}
} // namespace

std::shared_ptr<TUSummaries>
joinTUSummaries(const void *Context, llvm::StringRef Check,
                llvm::function_ref<std::shared_ptr<TUSummaries>()> Make) {
  std::lock_guard<std::mutex> Guard(Lock);
  Slot &S = slots()[Context];
  if (!S.Shared || S.Joined.contains(Check))
    S = Slot{Make(), {}, 0};
  S.Joined.insert(Check);
  return S.Shared;
}

bool leaveTUSummaries(const void *Context, llvm::StringRef Check) {
  std::lock_guard<std::mutex> Guard(Lock);
  auto It = slots().find(Context);
  if (It == slots().end() || !It->second.Joined.contains(Check))
    return false;
  if (++It->second.Left < It->second.Joined.size())
    return false;
  slots().erase(It);
  return true;
}

} // namespace tidy
} // namespace meshguard
