// RUN: %meshguard_tidy %s --checks=-*,dtensor-collective-without-mesh \
// RUN:   -config="{CheckOptions: {dtensor-collective-without-mesh.PrintStats: maybe, dtensor-collective-without-mesh.MaxBlockVisits: -3, dtensor-collective-without-mesh.StrictMode: yes}}" \
// RUN:   -- -std=c++17 -I%stubs 2>&1 | FileCheck %s

// A malformed option is reported with its value and what was used instead;
// the check still runs with the default.
// CHECK-DAG: warning: invalid configuration value '-3' for option 'dtensor-collective-without-mesh.MaxBlockVisits': a limit must be positive; using 20000 [clang-tidy-config]
// CHECK-DAG: warning: invalid configuration value 'maybe' for option 'dtensor-collective-without-mesh.PrintStats': expected true or false; using false [clang-tidy-config]
// CHECK-DAG: warning: invalid configuration value 'yes' for option 'dtensor-collective-without-mesh.StrictMode': expected true or false; using false [clang-tidy-config]
// CHECK: warning: collective 'c10d.broadcast_.default' has no DeviceMesh

#include <meshguard/meshguard.h>

void plain() {
  at::Tensor t = torch::randn({4});
  meshguard::dist::broadcast_({t}, 0);
}
