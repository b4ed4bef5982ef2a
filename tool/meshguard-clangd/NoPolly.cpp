//===--- NoPolly.cpp - Polly's pass-plugin hook, empty --------------------===//
//
// Debian builds LLVM with Polly linked into its tools, so clangCodeGen's
// BackendUtil.cpp (pulled in through clangDependencyScanning, which clangd's
// C++20 modules support uses) calls getPollyPluginInfo(). Polly ships only as
// the LLVMPolly.so pass plugin, not as a static archive. clangd never runs an
// optimisation pipeline, so this hook registers nothing.
//
//===----------------------------------------------------------------------===//

#include "llvm/Config/llvm-config.h"
#include "llvm/Passes/PassPlugin.h"

llvm::PassPluginLibraryInfo getPollyPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "Polly (not linked)", LLVM_VERSION_STRING,
          [](llvm::PassBuilder &) {}};
}
