// RUN: %check_meshguard %s dtensor-collective-without-mesh %t -- \
// RUN:   -config="{CheckOptions: {dtensor-collective-without-mesh.ReportSkipped: true, dtensor-collective-without-mesh.MaxBlockVisits: 12}}" \
// RUN:   -- -I%stubs
// RUN: %meshguard_tidy %s --checks=-*,dtensor-collective-without-mesh \
// RUN:   -config="{CheckOptions: {dtensor-collective-without-mesh.PrintStats: true, dtensor-collective-without-mesh.MaxBlockVisits: 12}}" \
// RUN:   -- -std=c++17 -I%stubs 2>&1 | FileCheck %s -check-prefix=STATS
// STATS: meshguard: dtensor-collective-without-mesh: {{[0-9]+}} function(s) analysed, 1 skipped; 1 because the block visit limit (MaxBlockVisits) was reached

// Templates, macros, limits and odd code: no crash, no hang, no silent skip.

#include <meshguard/meshguard.h>

template <typename T> void perInstantiation(T) {
  at::Tensor t = torch::randn({2});
  meshguard::dist::broadcast_({t}, 0);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: collective 'c10d.broadcast_.default' has no DeviceMesh
}
template void perInstantiation<int>(int);
template void perInstantiation<float>(float);

// A dependent template that is never instantiated is not analysed.
template <typename T> void neverInstantiated(T x) {
  meshguard::dist::broadcast_({x.tensor()}, 0);
}

template <typename TensorT> void dependentTensor(const meshguard::DeviceMesh &mesh) {
  TensorT t = meshguard::distribute_tensor(torch::randn({2}), mesh, {});
  meshguard::dist::broadcast_({t}, 0);
}
template void dependentTensor<at::Tensor>(const meshguard::DeviceMesh &);

// The analysis of this function exceeds MaxBlockVisits: it is reported as a
// remark, never silently dropped.
void tooManyVisits(int n) {
  // CHECK-MESSAGES: :[[@LINE-1]]:6: remark: 'tooManyVisits' was not checked for collectives without a DeviceMesh: the block visit limit (MaxBlockVisits) was reached [dtensor-collective-without-mesh]
  at::Tensor t = torch::randn({2});
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      if (i % 2)
        t = t * 2;
      else
        t = t + t;
    }
  }
  meshguard::dist::broadcast_({t}, 0);
}

#define BROADCAST_ALL(...) meshguard::dist::broadcast_({__VA_ARGS__}, 0)
void viaMacro() {
  at::Tensor a = torch::randn({2});
  BROADCAST_ALL(a, a);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: collective 'c10d.broadcast_.default' has no DeviceMesh
}

void emptyList() { meshguard::dist::broadcast_({}, 0); }

void throughPointer(void (*fn)(std::vector<at::Tensor>, int64_t, int64_t)) {
  fn({torch::randn({2})}, 0, 0);
}

struct Holder {
  at::Tensor t = torch::randn({2});
  void refresh();
};
void fieldAfterUnknownMethod() {
  Holder h;
  h.refresh();
  meshguard::dist::broadcast_({h.t}, 0);
}
