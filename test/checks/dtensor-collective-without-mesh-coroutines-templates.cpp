// RUN: %check_meshguard %s dtensor-collective-without-mesh %t -- -- -std=c++20 -I%stubs
// RUN: %meshguard_tidy %s --checks=-*,dtensor-collective-without-mesh \
// RUN:   -config="{CheckOptions: {dtensor-collective-without-mesh.PrintStats: true}}" \
// RUN:   -- -std=c++20 -I%stubs 2>&1 | FileCheck %s -check-prefix=STATS
// STATS: meshguard: dtensor-collective-without-mesh: 2 function(s) analysed, 0 skipped; 2 template pattern(s) left to their instantiations;

// Coroutines are analysed like other functions (the suspension point is a
// call); templates are analysed per instantiation, and patterns never
// instantiated are counted, not analysed.
#include <coroutine>
#include <meshguard/meshguard.h>
#include <torch/torch.h>

struct Task {
  struct promise_type {
    Task get_return_object() { return {}; }
    std::suspend_never initial_suspend() noexcept { return {}; }
    std::suspend_never final_suspend() noexcept { return {}; }
    void return_void() {}
    void unhandled_exception() {}
  };
};

Task syncLater() {
  at::Tensor t = torch::randn({4});
  co_await std::suspend_always{};
  meshguard::dist::broadcast_({t}, 0);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: collective 'c10d.broadcast_.default' has no DeviceMesh{{.*}} [dtensor-collective-without-mesh]
}

template <typename T> void templ(T scale) {
  at::Tensor t = torch::randn({4}) * scale;
  meshguard::dist::broadcast_({t}, 0);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: collective 'c10d.broadcast_.default' has no DeviceMesh{{.*}} [dtensor-collective-without-mesh]
}
template void templ<int>(int);
template <typename T> void neverInstantiated(T) {
  meshguard::dist::broadcast_({torch::randn({4})}, 0);
}
