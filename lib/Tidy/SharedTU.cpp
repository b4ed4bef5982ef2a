//===--- SharedTU.cpp - What one TU's dtensor-* checks share -------------===//
//
// Keyed by the ClangTidyContext: one per clangd build (each on its own
// worker thread), one per meshguard-tidy run whose TUs come one after
// another. The map is the only state shared between threads.
//
//===----------------------------------------------------------------------===//

#include "SharedTU.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringSet.h"
#include <mutex>

namespace meshguard {
namespace tidy {

analysis::TUAnalysis &SharedTU::engine(
    llvm::StringRef Key,
    llvm::function_ref<std::unique_ptr<analysis::TUAnalysis>()> Make) {
  std::unique_ptr<analysis::TUAnalysis> &Slot = Engines[Key];
  if (!Slot)
    Slot = Make();
  return *Slot;
}

analysis::TUAnalysis *SharedTU::findEngine(llvm::StringRef Key) const {
  auto It = Engines.find(Key);
  return It == Engines.end() ? nullptr : It->second.get();
}

TUFunctions &SharedTU::functions(clang::ASTContext &Ctx) {
  if (!Functions || &Functions->context() != &Ctx)
    Functions = std::make_unique<TUFunctions>(Ctx);
  return *Functions;
}

analysis::SummaryLookup &SharedTU::lookup() {
  if (!Lookup) {
    Lookup = std::make_unique<analysis::SummaryLookup>(
        DatabaseDir.empty()
            ? std::make_shared<const analysis::SummaryDatabase>()
            : analysis::loadSharedSummaryDatabase(DatabaseDir));
    Lookup->setOwnTU(MainFile);
  }
  return *Lookup;
}

void SharedTU::setMainFile(llvm::StringRef Path) {
  if (MainFile == Path)
    return;
  MainFile = Path.str();
  if (Lookup)
    Lookup->setOwnTU(MainFile);
}

namespace {
struct Slot {
  std::shared_ptr<SharedTU> Shared;
  llvm::StringSet<> Joined;
  unsigned Left = 0;
};
std::mutex Lock;
llvm::DenseMap<const void *, Slot> &slots() {
  static llvm::DenseMap<const void *, Slot> Slots;
  return Slots;
}
} // namespace

std::shared_ptr<SharedTU>
joinSharedTU(const void *Context, llvm::StringRef Check,
             llvm::function_ref<std::shared_ptr<SharedTU>()> Make) {
  std::lock_guard<std::mutex> Guard(Lock);
  Slot &S = slots()[Context];
  if (!S.Shared || S.Joined.contains(Check))
    S = Slot{Make(), {}, 0};
  S.Joined.insert(Check);
  return S.Shared;
}

bool leaveSharedTU(const void *Context, llvm::StringRef Check) {
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
