// RUN: %check_meshguard %s dtensor-rank-divergent-collective %t -- -- -I%stubs

// Short-circuit conditions and switches for
// dtensor-rank-divergent-collective (issue #15): balanced when every side
// runs the same collectives, reported when they differ. Positive/negative
// twins.

#include <meshguard/meshguard.h>

using meshguard::DeviceMesh;

// --- && and ||: the sides are those of the enclosing if. ---------------------

void andSameSides(const DeviceMesh &mesh, at::Tensor g, bool ready) {
  if (mesh.get_rank() == 0 && ready) {
    g = g * 2;
    meshguard::dist::all_reduce_({g});
  } else {
    meshguard::dist::all_reduce_({g});
  }
}

void andDifferentSides(const DeviceMesh &mesh, at::Tensor g, at::Tensor w,
                       bool ready) {
  if (mesh.get_rank() == 0 && ready) {
    meshguard::dist::all_reduce_({g});
  } else {
    meshguard::dist::broadcast_({w}, 0);
  }
  // CHECK-NOTES: :[[@LINE-4]]:5: warning: the sides of a rank-dependent branch run different collectives (meshguard::dist::all_reduce_; other side: meshguard::dist::broadcast_): ranks on different sides mismatch and the job hangs
  // CHECK-NOTES: :[[@LINE-6]]:7: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-7]]:7: note: the rank-dependent value comes from 'mesh.get_rank()' here
  // CHECK-NOTES: :[[@LINE-5]]:5: warning: the sides of a rank-dependent branch run different collectives (meshguard::dist::broadcast_; other side: meshguard::dist::all_reduce_): ranks on different sides mismatch and the job hangs
  // CHECK-NOTES: :[[@LINE-9]]:7: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-10]]:7: note: the rank-dependent value comes from 'mesh.get_rank()' here
}

void orSameSides(const DeviceMesh &mesh, at::Tensor g, bool ready) {
  if (ready || !(mesh.get_rank() == 0)) {
    meshguard::dist::all_reduce_({g});
  } else {
    g = g * 3;
    meshguard::dist::all_reduce_({g});
  }
}

void orThenOnly(const DeviceMesh &mesh, at::Tensor g, bool ready) {
  if (ready || mesh.get_rank() == 0)
    meshguard::dist::all_reduce_({g});
  // CHECK-NOTES: :[[@LINE-1]]:5: warning: collective 'meshguard::dist::all_reduce_' runs only on the ranks where a rank-dependent condition holds: the other ranks never call it and the job hangs
  // CHECK-NOTES: :[[@LINE-3]]:7: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-4]]:16: note: the rank-dependent value comes from 'mesh.get_rank()' here
}

// The short circuit itself skips the collective on some ranks.
bool replicasAgree(at::Tensor g) {
  meshguard::dist::all_reduce_({g});
  return true;
}

void collectiveInTheShortCircuit(const DeviceMesh &mesh, at::Tensor g) {
  if (mesh.get_rank() == 0 && replicasAgree(g))
    g = g * 2;
  // CHECK-NOTES: :[[@LINE-2]]:31: warning: 'replicasAgree', which performs the collective 'meshguard::dist::all_reduce_', runs only on the ranks where a rank-dependent condition holds
  // CHECK-NOTES: :[[@LINE-3]]:7: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-4]]:7: note: the rank-dependent value comes from 'mesh.get_rank()' here
  // CHECK-NOTES: :[[@LINE-10]]:3: note: 'replicasAgree' performs the collective 'meshguard::dist::all_reduce_' here
}

void collectiveBeforeTheShortCircuit(const DeviceMesh &mesh, at::Tensor g) {
  if (replicasAgree(g) && mesh.get_rank() == 0)
    g = g * 2;
}

void earlyExitOnAnd(const DeviceMesh &mesh, at::Tensor g, bool ready) {
  if (mesh.get_rank() != 0 && ready)
    return;
  meshguard::dist::all_reduce_({g});
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: collective 'meshguard::dist::all_reduce_' is skipped by the ranks that leave early through a rank-dependent 'return'
  // CHECK-NOTES: :[[@LINE-4]]:7: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-5]]:7: note: the rank-dependent value comes from 'mesh.get_rank()' here
  // CHECK-NOTES: :[[@LINE-5]]:5: note: some ranks leave here
}

void earlyExitOnUniformAnd(const DeviceMesh &mesh, at::Tensor g, bool ready) {
  if (mesh.size() > 1 && ready)
    return;
  meshguard::dist::all_reduce_({g});
}

// --- switch: one side per arm. -----------------------------------------------

void switchSameArms(const DeviceMesh &mesh, at::Tensor g) {
  switch (mesh.get_rank() % 3) {
  case 0:
    g = g * 2;
    meshguard::dist::all_reduce_({g});
    break;
  case 1:
  case 2: {
    meshguard::dist::all_reduce_({g});
    break;
  }
  default:
    meshguard::dist::all_reduce_({g});
  }
}

void switchDifferentArms(const DeviceMesh &mesh, at::Tensor g, at::Tensor w) {
  switch (mesh.get_rank() % 2) {
  case 0:
    meshguard::dist::all_reduce_({g});
    break;
  default:
    meshguard::dist::broadcast_({w}, 0);
    break;
  }
  // CHECK-NOTES: :[[@LINE-6]]:5: warning: the sides of a rank-dependent branch run different collectives (meshguard::dist::all_reduce_; other side: meshguard::dist::broadcast_): ranks on different sides mismatch and the job hangs
  // CHECK-NOTES: :[[@LINE-9]]:11: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-10]]:11: note: the rank-dependent value comes from 'mesh.get_rank()' here
  // CHECK-NOTES: :[[@LINE-6]]:5: warning: the sides of a rank-dependent branch run different collectives (meshguard::dist::broadcast_; other side: meshguard::dist::all_reduce_): ranks on different sides mismatch and the job hangs
  // CHECK-NOTES: :[[@LINE-12]]:11: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-13]]:11: note: the rank-dependent value comes from 'mesh.get_rank()' here
}

// Without `default`, the values no case matches run nothing.
void switchWithoutDefault(const DeviceMesh &mesh, at::Tensor g) {
  switch (mesh.get_rank()) {
  case 0:
    meshguard::dist::all_reduce_({g});
    break;
  case 1:
    meshguard::dist::all_reduce_({g});
    break;
  }
  // CHECK-NOTES: :[[@LINE-6]]:5: warning: collective 'meshguard::dist::all_reduce_' runs only on the ranks where a rank-dependent condition holds
  // CHECK-NOTES: :[[@LINE-9]]:11: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-10]]:11: note: the rank-dependent value comes from 'mesh.get_rank()' here
  // CHECK-NOTES: :[[@LINE-6]]:5: warning: collective 'meshguard::dist::all_reduce_' runs only on the ranks where a rank-dependent condition holds
  // CHECK-NOTES: :[[@LINE-12]]:11: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-13]]:11: note: the rank-dependent value comes from 'mesh.get_rank()' here
}

// An arm that leaves early: what follows the switch is skipped there.
void switchArmReturns(const DeviceMesh &mesh, at::Tensor g) {
  switch (mesh.get_rank() % 2) {
  case 0:
    return;
  default:
    break;
  }
  meshguard::dist::all_reduce_({g});
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: collective 'meshguard::dist::all_reduce_' is skipped by the ranks that leave early through a rank-dependent 'return'
  // CHECK-NOTES: :[[@LINE-8]]:11: note: this condition depends on the rank
  // CHECK-NOTES: :[[@LINE-9]]:11: note: the rank-dependent value comes from 'mesh.get_rank()' here
  // CHECK-NOTES: :[[@LINE-8]]:5: note: some ranks leave here
}

void switchOnUniformValue(const DeviceMesh &mesh, at::Tensor g, at::Tensor w) {
  switch (mesh.size()) {
  case 1:
    meshguard::dist::all_reduce_({g});
    break;
  default:
    meshguard::dist::broadcast_({w}, 0);
  }
}
