//===--- DistributeModuleFix.h - Its fix-it ---------------------*- C++ -*-===//
//
// The fix for a module whose parameters are plain because it was never given
// to meshguard::distribute_module: distribute it right after its declaration.
//
//===----------------------------------------------------------------------===//

#ifndef MESHGUARD_TIDY_DISTRIBUTEMODULEFIX_H
#define MESHGUARD_TIDY_DISTRIBUTEMODULEFIX_H

#include "MeshInScope.h"
#include "clang/Basic/Diagnostic.h"
#include <optional>

namespace meshguard {
namespace tidy {

/// `meshguard::distribute_module(*head, mesh);` on a line of its own after the
/// statement that declares the local \p Module of \p FD, with the DeviceMesh
/// variable in scope there. None when no mesh is in scope at the declaration,
/// or the declaration is in a macro or a system header.
/// How distribute_module is given \p Module: `head` for a module object,
/// `*head` for a holder (`torch::nn::Linear`, `std::shared_ptr<Net>`).
std::string distributeModuleArgument(const clang::VarDecl &Module,
                                     const analysis::ApiIndex &Index);

std::optional<clang::FixItHint>
distributeModuleFix(const clang::FunctionDecl &FD, const clang::VarDecl &Module,
                    const analysis::ApiIndex &Index, MeshLocals *Cache);

} // namespace tidy
} // namespace meshguard

#endif // MESHGUARD_TIDY_DISTRIBUTEMODULEFIX_H
