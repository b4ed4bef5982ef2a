//===- Plan.h - meshguard-checkpoint plan ---------------------------------===//
//
// `meshguard-checkpoint plan DIR --mesh AxB [--placements P] [--entry
// NAME=P]... [--shape NAME=AxB]... [--rank N]`: which bytes of which files
// each rank of the target mesh reads on load, and what does not fit
// (docs/runtime/checkpoint.md).
//
//===----------------------------------------------------------------------===//

#pragma once

namespace meshguard {
namespace tool {

// Runs the command on the arguments after `plan`; returns the exit code
// (0 all fits, 1 a problem or an error, printed; 2 a usage error).
int runPlan(int Argc, char **Argv);

} // namespace tool
} // namespace meshguard
