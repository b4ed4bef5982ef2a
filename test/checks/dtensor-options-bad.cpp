// RUN: %meshguard_tidy %s --checks=-*,dtensor-collective-without-mesh \
// RUN:   -config="{CheckOptions: {dtensor-collective-without-mesh.PrintStats: maybe, dtensor-collective-without-mesh.MaxBlockVisits: -3, dtensor-collective-without-mesh.StrictMode: yes}}" \
// RUN:   -- -std=c++17 -I%stubs 2>&1 | FileCheck %s
// RUN: %meshguard_tidy %s --checks=-*,dtensor-* \
// RUN:   -config="{CheckOptions: {dtensor-collective-without-mesh.StrictMod: true, dtensor-collective-without-mesh.MaxSatConflicts: 5, dtensor-mixed-tensor-op.StrictMode: true, dtensor-colective-without-mesh.StrictMode: true, dtensor-collective-without-mesh.MaxSATConflicts: 2147483648, dtensor-collective-without-mesh.MaxFunctionElements: 2147483648, dtensor-process-group-misuse.MaxBlockVisits: 12x, dtensor-mixed-tensor-op.MaxBlockVisits: 99999999999999999999999, readability-foo.Bar: 1}}" \
// RUN:   -- -std=c++17 -I%stubs 2>&1 | FileCheck %s -check-prefix=NAMES

// A malformed option is reported with its value and what was used instead;
// the check still runs with the default.
// CHECK-DAG: warning: invalid configuration value '-3' for option 'dtensor-collective-without-mesh.MaxBlockVisits': a limit must be positive (limits are 1 to 2147483647); using 20000 [clang-tidy-config]
// CHECK-DAG: warning: invalid configuration value 'maybe' for option 'dtensor-collective-without-mesh.PrintStats': expected true or false; using false [clang-tidy-config]
// CHECK-DAG: warning: invalid configuration value 'yes' for option 'dtensor-collective-without-mesh.StrictMode': expected true or false; using false [clang-tidy-config]
// CHECK: warning: collective 'c10d.broadcast_.default' has no DeviceMesh

// Unknown option names (clang-tidy reports them only under --verify-config,
// clangd never) and values out of range: a warning that says what happens.
// NAMES-DAG: warning: unknown option 'StrictMod' for check 'dtensor-collective-without-mesh': it is ignored; did you mean 'StrictMode'? [clang-tidy-config]
// NAMES-DAG: warning: unknown option 'MaxSatConflicts' for check 'dtensor-collective-without-mesh': it is ignored; did you mean 'MaxSATConflicts'? [clang-tidy-config]
// NAMES-DAG: warning: unknown option 'StrictMode' for check 'dtensor-mixed-tensor-op': it is ignored; its options are: MaxBlockVisits, MaxFunctionElements, MaxSATConflicts, ModelFile, PrintStats, ReportSkipped [clang-tidy-config]
// NAMES-DAG: warning: option 'dtensor-colective-without-mesh.StrictMode' names no check: there is no check 'dtensor-colective-without-mesh' (the dtensor-* checks are dtensor-collective-without-mesh, dtensor-process-group-misuse, dtensor-mixed-tensor-op, dtensor-rank-divergent-collective, dtensor-partial-local-use, dtensor-op-without-sharding-rule, dtensor-unverified-replicate, dtensor-mixed-meshes and dtensor-unsharded-checkpoint); it is ignored [clang-tidy-config]
// NAMES-DAG: warning: invalid configuration value '2147483648' for option 'dtensor-collective-without-mesh.MaxSATConflicts': out of range (limits are 1 to 2147483647); using 100000 [clang-tidy-config]
// NAMES-DAG: warning: invalid configuration value '2147483648' for option 'dtensor-collective-without-mesh.MaxFunctionElements': out of range (limits are 1 to 2147483647); using 20000 [clang-tidy-config]
// NAMES-DAG: warning: invalid configuration value '12x' for option 'dtensor-process-group-misuse.MaxBlockVisits': expected an integer (limits are 1 to 2147483647); using 20000 [clang-tidy-config]
// NAMES-DAG: warning: invalid configuration value '99999999999999999999999' for option 'dtensor-mixed-tensor-op.MaxBlockVisits': out of range (limits are 1 to 2147483647); using 20000 [clang-tidy-config]
// NAMES-NOT: readability-foo
// NAMES: warning: collective 'c10d.broadcast_.default' has no DeviceMesh

#include <meshguard/meshguard.h>

void plain() {
  at::Tensor t = torch::randn({4});
  meshguard::dist::broadcast_({t}, 0);
}
