//===--- CalleeNotes.h - The note inside a callee, here or elsewhere -*- C++
//-*-===//
//
// A finding at a call whose callee does the harm ends with a note at the
// collective (or tensor op) inside the callee. The callee may be in this TU
// (a call expression) or, through the summary database, in another file (a
// recorded place): then the note says where in its text, "inside 'sync'
// (dist_utils.cpp:12): ...", or "inside a function 'g' calls (c.cpp:4)"
// when the place is in a file the helper calls into, and points into that
// file when it can be read.
//
//===----------------------------------------------------------------------===//

#ifndef MESHGUARD_TIDY_CALLEENOTES_H
#define MESHGUARD_TIDY_CALLEENOTES_H

#include "clang-tidy/ClangTidyCheck.h"
#include "meshguard/Analysis/Summaries/SummaryDatabase.h"

namespace meshguard {
namespace tidy {

/// Emits \p Message (a diagnostic format; the caller streams its
/// arguments) as a note at \p Inner, or at \p Elsewhere when Inner is null;
/// \p Call is the fallback place of an Elsewhere that cannot be mapped.
clang::DiagnosticBuilder
noteInCallee(clang::tidy::ClangTidyCheck &Check, const clang::Expr *Inner,
             const analysis::ExternalSite *Elsewhere, const clang::Expr &Call,
             llvm::StringRef Message, clang::ASTContext &Ctx);

} // namespace tidy
} // namespace meshguard

#endif // MESHGUARD_TIDY_CALLEENOTES_H
