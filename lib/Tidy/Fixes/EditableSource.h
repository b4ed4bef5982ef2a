//===--- EditableSource.h - Where a fix-it may edit -------------*- C++ -*-===//
//
// Fix-its never touch macro expansions (the edit would land in the macro's
// definition or be lost) or system headers (not the user's code).
//
//===----------------------------------------------------------------------===//

#ifndef MESHGUARD_TIDY_EDITABLESOURCE_H
#define MESHGUARD_TIDY_EDITABLESOURCE_H

#include "clang/Basic/SourceLocation.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/STLExtras.h"
#include <initializer_list>

namespace meshguard {
namespace tidy {

/// Whether a fix-it may edit the source at every one of \p Locations.
inline bool isEditable(std::initializer_list<clang::SourceLocation> Locations,
                       const clang::SourceManager &SM) {
  return llvm::all_of(Locations, [&SM](clang::SourceLocation L) {
    return L.isValid() && !L.isMacroID() && !SM.isInSystemHeader(L);
  });
}

} // namespace tidy
} // namespace meshguard

#endif // MESHGUARD_TIDY_EDITABLESOURCE_H
