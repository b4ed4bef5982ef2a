//===- PluginImpl.cpp - the part of the plugin that holds the checks ------===//
//
// MeshguardTidyPluginImpl.so = this file + the analysis and dtensor module
// objects. Loaded only by MeshguardTidyPlugin.so, after it has checked the
// host's LLVM version. The loader reads this string to make sure the two files
// come from the same build.
//
//===----------------------------------------------------------------------===//

#include "llvm/Config/llvm-config.h"

extern "C" __attribute__((visibility("default")))
const char MeshguardTidyPluginImplLLVMVersion[] = LLVM_VERSION_STRING;
