//===--- ModuleConstructors.h - Does a new module start plain? -*- C++ -*-===//
//
// A module built here starts with plain parameters, unless its own
// constructor makes DTensors (`register_parameter("w",
// distribute_tensor(...))`, or `distribute_module(*this, mesh)`), as
// docs/runtime/module.md recommends for modules that know their mesh.
//
//===----------------------------------------------------------------------===//

#ifndef MESHGUARD_ANALYSIS_MODULECONSTRUCTORS_H
#define MESHGUARD_ANALYSIS_MODULECONSTRUCTORS_H

#include "clang/AST/DeclCXX.h"

namespace meshguard {
namespace analysis {

class ApiIndex;

/// Whether constructing \p Module may give it DTensor parameters: one of its
/// constructors (or a field initializer) calls a DTensor-making function or
/// distribute_module, or a user-written constructor has no body in this TU.
bool constructorMayMakeDTensors(const clang::CXXRecordDecl &Module,
                                const ApiIndex &Index);

} // namespace analysis
} // namespace meshguard

#endif // MESHGUARD_ANALYSIS_MODULECONSTRUCTORS_H
