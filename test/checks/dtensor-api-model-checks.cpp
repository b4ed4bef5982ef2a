// RUN: not %meshguard_tidy %s --checks=-*,dtensor-collective-without-mesh,dtensor-process-group-misuse \
// RUN:   -config="{CheckOptions: {dtensor-collective-without-mesh.ModelFile: '%S/Inputs/unchecked-model.yaml', dtensor-process-group-misuse.ModelFile: '%S/Inputs/unchecked-model.yaml'}}" \
// RUN:   -- -std=c++17 -I%stubs 2>&1 | FileCheck %s

// A model entry that cannot apply to what the TU declares is an error (or,
// for a missing guarded form, a warning) at its file:line:col, never a
// silent drop or a fix-it that calls a missing function; a re-declared
// built-in with other arguments is an error and the built-in entry stays.

// CHECK-DAG: error: {{.*}}unchecked-model.yaml:10:5: 'meshguard::dist::broadcast_' is built in (tensor_arg 0, op c10d.broadcast_.default, guarded meshguard::guarded::broadcast_); this entry (tensor_arg 1, op c10d.broadcast_.default, guarded (none)) would replace it and is ignored [clang-tidy-config]
// CHECK-DAG: error: {{.*}}unchecked-model.yaml:18:5: 'torch::randn' is built in (makes plain); this entry (makes dtensor) would replace it and is ignored [clang-tidy-config]
// CHECK-DAG: error: {{.*}}unchecked-model.yaml:3:5: tensor_arg 3 of 'mylib::sync' is beyond its 2 parameter(s) (counted from 0): the entry is ignored [clang-tidy-config]
// CHECK-DAG: warning: {{.*}}unchecked-model.yaml:6:5: guarded function 'mylib::sync2_onn' of 'mylib::sync2' is not declared in this translation unit: no fix-it is offered for 'mylib::sync2' [clang-tidy-config]
// CHECK-DAG: error: {{.*}}unchecked-model.yaml:14:5: tensor_args entry 2 of 'mylib::raw_send' is beyond its 1 parameter(s) (counted from 0): it is ignored [clang-tidy-config]

#include <meshguard/meshguard.h>

namespace mylib {
void sync(int tag, std::vector<at::Tensor> tensors);
void sync2(int tag, std::vector<at::Tensor> tensors);
void sync2_on(int tag, std::vector<at::Tensor> tensors, const meshguard::DeviceMesh &m);
void raw_send(const at::Tensor &t);
} // namespace mylib

void uses(const meshguard::DeviceMesh &mesh) {
  at::Tensor t = torch::randn({2});
  mylib::sync(7, {t});
  mylib::sync2(7, {t});
  // CHECK-DAG: :[[@LINE-1]]:3: warning: collective 'c10d.broadcast_.default' has no DeviceMesh
  // CHECK-DAG: :[[@LINE-2]]:3: note: make one tensor argument a DTensor (meshguard::distribute_tensor, meshguard::from_local); the mesh-explicit form 'mylib::sync2_onn' that the API model names is not declared in this translation unit
  // The built-in broadcast_ (tensor_arg 0) still applies.
  meshguard::dist::broadcast_({t}, 0);
  // CHECK-DAG: :[[@LINE-1]]:3: warning: collective 'c10d.broadcast_.default' has no DeviceMesh
  mylib::raw_send(t);
}
