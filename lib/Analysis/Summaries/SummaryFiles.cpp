//===--- SummaryFiles.cpp - Where a TU's summaries go, and how ------------===//
//
// One file per TU, named by the TU's path, written through a temporary file
// and a rename: a check reading the database at the same time sees the old
// file or the new one, never half of one. Shared by meshguard-tidy's
// --summarize and the export of a check run.
//
//===----------------------------------------------------------------------===//

#include "meshguard/Analysis/Summaries/SummaryDatabase.h"
#include "clang/AST/ASTContext.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace clang;

namespace meshguard {
namespace analysis {

std::string mainFilePath(const SourceManager &SM) {
  OptionalFileEntryRef Main = SM.getFileEntryRefForID(SM.getMainFileID());
  if (!Main)
    return "";
  llvm::SmallString<256> Path(Main->getName());
  SM.getFileManager().makeAbsolutePath(Path);
  llvm::sys::path::remove_dots(Path, /*remove_dot_dot=*/true);
  return std::string(Path);
}

std::string mainFilePath(const ASTContext &Ctx) {
  return mainFilePath(Ctx.getSourceManager());
}

std::string summaryFileName(llvm::StringRef TUPath) {
  return summaryContentHash(TUPath).substr(0, 16) + ".json";
}

/// Removes the temporary file of a failed write; failing to remove it
/// too adds nothing to the error the caller reports.
static void discardTemporary(const llvm::Twine &Temp) {
  std::error_code Ignored = llvm::sys::fs::remove(Temp);
  (void)Ignored;
}

llvm::Error writeFileAtomically(llvm::StringRef Path, llvm::StringRef Text) {
  auto Failed = [](const llvm::Twine &What, std::error_code EC) {
    return llvm::createStringError(EC, "cannot write %s: %s",
                                   What.str().c_str(), EC.message().c_str());
  };
  llvm::SmallString<256> Temp;
  int FD;
  if (std::error_code EC =
          llvm::sys::fs::createUniqueFile(Path + ".tmp-%%%%%%", FD, Temp))
    return Failed("in '" + llvm::sys::path::parent_path(Path) + "'", EC);
  {
    llvm::raw_fd_ostream OS(FD, /*shouldClose=*/true);
    OS << Text;
    OS.close();
    if (OS.has_error()) {
      std::error_code EC = OS.error();
      OS.clear_error();
      discardTemporary(Temp);
      return Failed("'" + Temp + "'", EC);
    }
  }
  if (std::error_code EC = llvm::sys::fs::rename(Temp, Path)) {
    discardTemporary(Temp);
    return Failed("'" + Path + "'", EC);
  }
  return llvm::Error::success();
}

} // namespace analysis
} // namespace meshguard
