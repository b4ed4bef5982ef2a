//===- MeshguardClangdMain.cpp - clangd with the dtensor checks -----------===//
//
// clangd cannot load clang-tidy plugins (clangd/clangd#1458), so custom checks
// reach the editor through a clangd that links them. This is clangd-19's own
// main (clangdMain); clangDaemon keeps every upstream clang-tidy module, the
// anchor below keeps the dtensor module.
//
// Users must let clangd run checks it has not timed:
//   .clangd:  Diagnostics: {ClangTidy: {FastCheckFilter: Loose}}
// (clangd 19 defaults to Strict, which silently drops dtensor-*).
//
//===----------------------------------------------------------------------===//

#include "common/MeshguardAnchor.h"

namespace clang::clangd {
int clangdMain(int argc, char *argv[]);
} // namespace clang::clangd

int main(int argc, char *argv[]) {
  return clang::clangd::clangdMain(argc, argv);
}
