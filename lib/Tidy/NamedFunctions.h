//===--- NamedFunctions.h - What a function named by the model accepts -*- C++
//-*-===//
//
// A fix-it may only call a function the translation unit declares, with
// arguments it accepts: the API model names functions by string (guarded
// collectives, mesh_of), so each fix-it looks them up first.
//
//===----------------------------------------------------------------------===//

#ifndef MESHGUARD_TIDY_NAMEDFUNCTIONS_H
#define MESHGUARD_TIDY_NAMEDFUNCTIONS_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

namespace meshguard {
namespace tidy {

/// The declarations this TU has of \p QualifiedName ("ns::f", "ns::C::m");
/// a function template counts by its pattern.
llvm::SmallVector<const clang::FunctionDecl *, 2>
functionsNamed(clang::ASTContext &Ctx, llvm::StringRef QualifiedName);

/// Whether an lvalue of type \p Arg can be passed as parameter \p I of one
/// of \p Fns: the parameter is that class or a base of it (by value or by
/// reference), or depends on a template parameter.
bool acceptsArgument(llvm::ArrayRef<const clang::FunctionDecl *> Fns,
                     unsigned I, clang::QualType Arg);

} // namespace tidy
} // namespace meshguard

#endif // MESHGUARD_TIDY_NAMEDFUNCTIONS_H
