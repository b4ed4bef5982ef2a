// RUN: %meshguard_tidy %s --checks=-*,dtensor-* \
// RUN:   -config="{CheckOptions: {dtensor-collective-without-mesh.PrintStats: true, dtensor-mixed-tensor-op.PrintStats: true, dtensor-process-group-misuse.PrintStats: true}}" \
// RUN:   -- -std=c++17 -I%stubs 2>&1 | FileCheck %s -check-prefix=SHARED
// RUN: %meshguard_tidy %s --checks=-*,dtensor-* \
// RUN:   -config="{CheckOptions: {MeshguardMaxFunctionElements: 3, dtensor-collective-without-mesh.ReportSkipped: true, dtensor-mixed-tensor-op.ReportSkipped: true}}" \
// RUN:   -- -std=c++17 -I%stubs 2>&1 | FileCheck %s -check-prefix=GLOBAL
// RUN: %meshguard_tidy %s --checks=-*,dtensor-* \
// RUN:   -config="{CheckOptions: {MeshguardMaxFunctionElements: 3, dtensor-collective-without-mesh.MaxFunctionElements: 20000, dtensor-collective-without-mesh.PrintStats: true, dtensor-mixed-tensor-op.ReportSkipped: true}}" \
// RUN:   -- -std=c++17 -I%stubs 2>&1 | FileCheck %s -check-prefix=OWN
// RUN: %meshguard_tidy %s --checks=-*,dtensor-* \
// RUN:   -config="{CheckOptions: {MeshguardMaxBlockVisits: lots}}" \
// RUN:   -- -std=c++17 -I%stubs 2>&1 | FileCheck %s -check-prefix=BAD

// The dtensor-* checks of a TU share one analysis: each function is run
// once, whichever checks pick it (here three checks pick step(), two pick
// mix(), one picks sync(): three runs, not six).
// SHARED-DAG: dtensor-process-group-misuse: 2 function(s) analysed, {{.*}}; 3 provenance run(s) shared by the TU's checks
// SHARED-DAG: dtensor-mixed-tensor-op: 2 function(s) analysed, {{.*}}; 3 provenance run(s) shared by the TU's checks
// SHARED-DAG: dtensor-collective-without-mesh: 2 function(s) analysed, {{.*}}; 3 provenance run(s) shared by the TU's checks

// A global Meshguard* option sets the analysis of every check.
// GLOBAL-DAG: remark: 'step' was not checked for collectives without a DeviceMesh: the function is larger than MaxFunctionElements
// GLOBAL-DAG: remark: 'step' was not checked for tensor ops mixing DTensors and plain tensors: the function is larger than MaxFunctionElements

// A check's own option wins over the global one; that check then has an
// analysis of its own (the other checks share theirs).
// OWN-DAG: remark: 'step' was not checked for tensor ops mixing DTensors and plain tensors
// OWN-DAG: warning: collective 'c10d.broadcast_.default' has no DeviceMesh
// OWN-DAG: dtensor-collective-without-mesh: 2 function(s) analysed, 0 skipped; {{.*}}; 2 provenance run(s) shared by the TU's checks

// BAD: warning: invalid configuration value 'lots' for option 'MeshguardMaxBlockVisits': expected an integer (limits are 1 to 2147483647); using 20000 [clang-tidy-config]

#include <meshguard/meshguard.h>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>

void sync(at::Tensor t) { meshguard::dist::broadcast_({t}, 0); }

void step(meshguard::DeviceMesh &mesh, c10d::ProcessGroup &pg) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({4}), mesh,
                                              {meshguard::Replicate{}});
  at::Tensor p = torch::randn({4});
  std::vector<at::Tensor> ts{w};
  pg.broadcast(ts);
  meshguard::dist::broadcast_({p}, 0);
}

void mix(meshguard::DeviceMesh &mesh, c10d::ProcessGroup &pg) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({4}), mesh,
                                              {meshguard::Replicate{}});
  std::vector<at::Tensor> ts{w};
  pg.allreduce(ts);
}
