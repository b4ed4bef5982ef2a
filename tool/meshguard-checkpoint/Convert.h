//===- Convert.h - meshguard-checkpoint convert ---------------------------===//
//
// `meshguard-checkpoint convert SRC DST --format dcp|safetensors [--force]`:
// any checkpoint meshguard reads in, the named layout out (docs/runtime/
// checkpoint.md).
//
//===----------------------------------------------------------------------===//

#pragma once

namespace meshguard {
namespace tool {

// Runs the command on the arguments after `convert`; returns the exit code
// (0 done, 1 an error, printed; 2 a usage error).
int runConvert(int Argc, char **Argv);

} // namespace tool
} // namespace meshguard
