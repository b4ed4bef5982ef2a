//===- MeshguardTidyMain.cpp - clang-tidy with the dtensor checks ---------===//
//
// meshguard-tidy is clang-tidy-19: the same driver (clangTidyMain, so -p,
// -checks, -config, -fix, -export-fixes, -warnings-as-errors, .clang-tidy
// discovery, ... behave exactly as upstream), every upstream module (kept by
// ClangTidyForceLinker.h, which clangTidyMain includes), and meshguard's
// dtensor module (kept by the anchor below).
//
// One mode of its own: `--summarize=DIR` runs the summary pass of the
// whole-program analysis instead (SummarizeMode.cpp, meshguard-run's first
// pass).
//
// --version adds meshguard's version, and the libtorch its runtime and API
// model were made for, to LLVM's version text.
//
// One addition, on stderr only (exit codes and stdout stay clang-tidy's): a
// name in -checks that matches no check is reported, with the closest real
// name. clang-tidy ignores such a name when other checks are enabled, so a
// typo in CI would silently check nothing.
//
//===----------------------------------------------------------------------===//

#include "SummarizeMode.h"
#include "common/MeshguardAnchor.h"

#include "clang-tidy/ClangTidy.h"
#include "clang-tidy/ClangTidyOptions.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace clang::tidy {
int clangTidyMain(int argc, const char **argv);
} // namespace clang::tidy

// Set by the build (tool/meshguard-tidy/CMakeLists.txt and the top level).
#ifndef MESHGUARD_VERSION
#error "MESHGUARD_VERSION is not defined"
#endif
#ifndef MESHGUARD_TORCH_VERSION
#define MESHGUARD_TORCH_VERSION "unknown (built without the runtime)"
#endif

namespace {

void printMeshguardVersion(llvm::raw_ostream &OS) {
  OS << "meshguard " MESHGUARD_VERSION "\n"
     << "  built with LLVM " LLVM_VERSION_STRING "\n"
     << "  runtime and libtorch API model: libtorch " MESHGUARD_TORCH_VERSION
        "\n";
}

std::vector<std::string> enabledBy(llvm::StringRef Checks) {
  clang::tidy::ClangTidyOptions Options;
  Options.Checks = ("-*," + Checks).str();
  return clang::tidy::getCheckNames(
      Options,
      /*AllowEnablingAnalyzerAlphaCheckers=*/true);
}

/// Warns about each positive pattern of a -checks value that enables nothing.
void reportUnknownChecks(llvm::StringRef Value) {
  llvm::SmallVector<llvm::StringRef> Patterns;
  Value.split(Patterns, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  std::vector<std::string> All;
  for (llvm::StringRef Pattern : Patterns) {
    Pattern = Pattern.trim();
    // Removals, empty entries, and compiler warnings (clang-diagnostic-*,
    // which are not checks and are never listed) say nothing about names.
    if (Pattern.empty() || Pattern.starts_with("-") ||
        Pattern.starts_with("clang-diagnostic-"))
      continue;
    if (!enabledBy(Pattern).empty())
      continue;
    if (All.empty())
      All = enabledBy("*");
    llvm::StringRef Best;
    unsigned BestDistance = 4; // suggest only close names
    if (!Pattern.contains('*'))
      for (const std::string &Name : All) {
        unsigned Distance = Pattern.edit_distance(Name, true, BestDistance);
        if (Distance < BestDistance) {
          BestDistance = Distance;
          Best = Name;
        }
      }
    llvm::errs() << "meshguard-tidy: warning: '" << Pattern
                 << "' in -checks matches no check";
    if (!Best.empty())
      llvm::errs() << "; did you mean '" << Best << "'?";
    else
      llvm::errs() << " (-list-checks -checks='*' lists them all)";
    llvm::errs() << "\n";
  }
}

void checkChecksArguments(int Argc, const char **Argv) {
  for (int I = 1; I < Argc; ++I) {
    llvm::StringRef Arg = Argv[I];
    if (Arg == "--")
      break;
    if (Arg.consume_front("--checks=") || Arg.consume_front("-checks="))
      reportUnknownChecks(Arg);
    else if ((Arg == "-checks" || Arg == "--checks") && I + 1 < Argc)
      reportUnknownChecks(Argv[++I]);
  }
}

} // namespace

int main(int argc, const char **argv) {
  if (meshguard::isSummarizeMode(argc, argv))
    return meshguard::summarizeMain(argc, argv);
  checkChecksArguments(argc, argv);
  llvm::cl::AddExtraVersionPrinter(printMeshguardVersion);
  return clang::tidy::clangTidyMain(argc, argv);
}
