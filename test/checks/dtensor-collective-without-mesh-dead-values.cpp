// RUN: %check_meshguard %s dtensor-collective-without-mesh %t -- -- -I%stubs

// The analysis forgets a temporary at the end of the block that made it, and
// a local when its lifetime ends (DeadValues). What outlives a statement must
// keep its provenance: lifetime-extended temporaries, copies out of a braced
// list or an inner scope, a range-for over a temporary. Every function
// branches after the statement, so the block that made the values is not
// the last one (the last block clears nothing).

#include <meshguard/meshguard.h>

using meshguard::DeviceMesh;
using meshguard::Replicate;

void extendedTemporary(bool c) {
  const at::Tensor &r = torch::randn({2});
  if (c)
    meshguard::dist::broadcast_({r}, 0);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: collective 'c10d.broadcast_.default' has no DeviceMesh
  meshguard::dist::broadcast_({r}, 0);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: collective 'c10d.broadcast_.default' has no DeviceMesh
}

void extendedDTensorTemporary(const DeviceMesh &mesh, bool c) {
  const at::Tensor &r =
      meshguard::distribute_tensor(torch::randn({2}), mesh, {Replicate{}});
  if (c)
    meshguard::dist::broadcast_({r}, 0);
  meshguard::dist::broadcast_({r}, 0);
}

void listIntoVector(bool c) {
  at::Tensor a = torch::randn({2});
  std::vector<at::Tensor> ts = {a, a * 2};
  if (c)
    a = torch::zeros({2});
  meshguard::dist::all_reduce_(ts);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: collective 'c10d.allreduce_.default' has no DeviceMesh
}

void listOfDTensorsIntoVector(const DeviceMesh &mesh, bool c) {
  at::Tensor a = meshguard::distribute_tensor(torch::randn({2}), mesh, {Replicate{}});
  std::vector<at::Tensor> ts = {a, a * 2};
  if (c)
    a = torch::zeros({2});
  meshguard::dist::all_reduce_(ts);
}

void copiedOutOfInnerScope(bool c) {
  at::Tensor out;
  {
    at::Tensor inner = torch::randn({2});
    out = inner;
  }
  if (c)
    out = out * 2;
  meshguard::dist::broadcast_({out}, 0);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: collective 'c10d.broadcast_.default' has no DeviceMesh
}

void dtensorCopiedOutOfInnerScope(const DeviceMesh &mesh, bool c) {
  at::Tensor out;
  {
    at::Tensor inner =
        meshguard::distribute_tensor(torch::randn({2}), mesh, {Replicate{}});
    out = inner;
  }
  if (c)
    out = out * 2;
  meshguard::dist::broadcast_({out}, 0);
}

void loopOverTemporaryVector(bool c) {
  for (const at::Tensor &t :
       std::vector<at::Tensor>{torch::randn({2}), torch::zeros({2})}) {
    if (c)
      continue;
    meshguard::dist::broadcast_({t}, 0);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: collective 'c10d.broadcast_.default' has no DeviceMesh
  }
}

void loopOverTemporaryDTensorVector(const DeviceMesh &mesh, bool c) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({2}), mesh, {Replicate{}});
  for (const at::Tensor &t : std::vector<at::Tensor>{w, w * 2}) {
    if (c)
      continue;
    meshguard::dist::broadcast_({t}, 0);
  }
}

// More temporaries in one block than a block clears (16): the rest stay,
// which costs time, never a finding.
void manyTemporariesInOneBlock(int n) {
  at::Tensor a = torch::randn({2});
  for (int i = 0; i < n; ++i) {
    meshguard::dist::broadcast_({a * 1, a * 2}, 0);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: collective 'c10d.broadcast_.default' has no DeviceMesh
    meshguard::dist::broadcast_({a * 3, a * 4}, 0);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: collective 'c10d.broadcast_.default' has no DeviceMesh
    meshguard::dist::broadcast_({a * 5, a * 6}, 0);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: collective 'c10d.broadcast_.default' has no DeviceMesh
    meshguard::dist::broadcast_({a * 7, a * 8}, 0);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: collective 'c10d.broadcast_.default' has no DeviceMesh
    meshguard::dist::broadcast_({a * 9, a * 10}, 0);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: collective 'c10d.broadcast_.default' has no DeviceMesh
  }
  meshguard::dist::broadcast_({a}, 0);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: collective 'c10d.broadcast_.default' has no DeviceMesh
}

void manyDTensorTemporariesInOneBlock(const DeviceMesh &mesh, int n) {
  at::Tensor a = meshguard::distribute_tensor(torch::randn({2}), mesh, {Replicate{}});
  for (int i = 0; i < n; ++i) {
    meshguard::dist::broadcast_({a * 1, a * 2}, 0);
    meshguard::dist::broadcast_({a * 3, a * 4}, 0);
    meshguard::dist::broadcast_({a * 5, a * 6}, 0);
    meshguard::dist::broadcast_({a * 7, a * 8}, 0);
    meshguard::dist::broadcast_({a * 9, a * 10}, 0);
  }
  meshguard::dist::broadcast_({a}, 0);
}
