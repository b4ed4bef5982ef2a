//===--- DeclaredNames.h - Does a TU declare any of these names -*- C++ -*-===//
//
// The checks' fixed cost on a translation unit that uses none of the API:
// before the matchers look at any function, one name lookup per API function
// tells whether the TU declares one at all. A TU that declares none cannot
// call one, so no function in it is worth analysing.
//
//===----------------------------------------------------------------------===//

#ifndef MESHGUARD_ANALYSIS_DECLAREDNAMES_H
#define MESHGUARD_ANALYSIS_DECLAREDNAMES_H

#include "clang/AST/ASTContext.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

namespace meshguard {
namespace analysis {

/// What name lookup from the translation unit finds for \p QualifiedName,
/// under the rules of declaresName (the declarations as found, using
/// declarations included).
llvm::SmallVector<const clang::NamedDecl *, 2>
lookupQualified(const clang::ASTContext &Ctx, llvm::StringRef QualifiedName);

/// Whether name lookup from the translation unit finds \p QualifiedName
/// ("meshguard::dist::broadcast_", "c10d::ProcessGroup::broadcast"): each
/// scope but the last is a namespace or a defined class. Inline namespaces
/// and linkage specifications are looked through, as the qualified names of
/// the API table omit them. A function declared only as a friend is not
/// found (ordinary lookup does not see it either).
bool declaresName(const clang::ASTContext &Ctx, llvm::StringRef QualifiedName);

/// Whether the translation unit declares any of \p QualifiedNames.
bool declaresAnyOf(const clang::ASTContext &Ctx,
                   llvm::ArrayRef<llvm::StringRef> QualifiedNames);

/// The functions with a body that the main file defines, in namespaces,
/// linkage specifications and classes: a template as its pattern and, with
/// \p WithSpecializations, its instantiations before it.
void mainFileFunctions(const clang::ASTContext &Ctx,
                       llvm::SmallVectorImpl<const clang::FunctionDecl *> &Out,
                       bool WithSpecializations = false);

} // namespace analysis
} // namespace meshguard

#endif // MESHGUARD_ANALYSIS_DECLAREDNAMES_H
