//===- MeshguardTidyMain.cpp - clang-tidy with the dtensor checks ---------===//
//
// meshguard-tidy is clang-tidy-19: the same driver (clangTidyMain, so -p,
// -checks, -config, -fix, -export-fixes, -warnings-as-errors, .clang-tidy
// discovery, ... behave exactly as upstream), every upstream module (kept by
// ClangTidyForceLinker.h, which clangTidyMain includes), and meshguard's
// dtensor module (kept by the anchor below).
//
//===----------------------------------------------------------------------===//

#include "common/MeshguardAnchor.h"

namespace clang::tidy {
int clangTidyMain(int argc, const char **argv);
} // namespace clang::tidy

int main(int argc, const char **argv) {
  return clang::tidy::clangTidyMain(argc, argv);
}
