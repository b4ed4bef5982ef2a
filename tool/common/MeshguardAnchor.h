//===- MeshguardAnchor.h - keep the dtensor module linked -------*- C++ -*-===//
//
// The dtensor clang-tidy module registers itself with a static
// ClangTidyModuleRegistry::Add<> object. In a static link nothing else refers
// to the module's object file, so this reference to its anchor keeps it (and
// with it the registration) in the binary. Include once per executable.
//
//===----------------------------------------------------------------------===//
#ifndef MESHGUARD_TOOL_COMMON_MESHGUARDANCHOR_H
#define MESHGUARD_TOOL_COMMON_MESHGUARDANCHOR_H

extern volatile int MeshguardDTensorModuleAnchorSource;
[[maybe_unused]] static int MeshguardDTensorModuleAnchorDestination =
    MeshguardDTensorModuleAnchorSource;

#endif
