// RUN: not %meshguard_tidy %s --checks=-*,dtensor-collective-without-mesh \
// RUN:   -config="{CheckOptions: {dtensor-collective-without-mesh.ModelFile: '%S/Inputs/bad-model.yaml'}}" \
// RUN:   -- -std=c++17 -I%stubs 2>&1 | FileCheck %s -check-prefix=CONFIG
// RUN: not %meshguard_tidy %s --checks=-*,dtensor-collective-without-mesh \
// RUN:   -config="{CheckOptions: {dtensor-collective-without-mesh.ModelFile: '%S/Inputs/missing.yaml'}}" \
// RUN:   -- -std=c++17 -I%stubs 2>&1 | FileCheck %s -check-prefix=MISSING

// A malformed model: a configuration error with line and column, no crash,
// and the built-in model still works.

// CONFIG: error: invalid meshguard API model {{.*}}bad-model.yaml:3:12: unknown enumerated scalar; using the built-in model only [clang-tidy-config]
// CONFIG: :[[@LINE+6]]:3: warning: collective 'c10d.broadcast_.default' has no DeviceMesh
// MISSING: error: invalid meshguard API model {{.*}}missing.yaml: No such file or directory

#include <meshguard/meshguard.h>

void stillChecked() {
  meshguard::dist::broadcast_({torch::randn({2})}, 0);
}
