// RUN: %check_meshguard -expect-tidy-error %s dtensor-collective-without-mesh %t -- -- -I%stubs

// A function with compile errors is skipped: no crash and no guess.

#include <meshguard/meshguard.h>

void broken() {
  at::Tensor t = torch::randn({2});
  undeclared_function(t);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: error: use of undeclared identifier 'undeclared_function' [clang-diagnostic-error]
  meshguard::dist::broadcast_({t}, 0);
}

void stillChecked() {
  at::Tensor t = torch::randn({2});
  meshguard::dist::broadcast_({t}, 0);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: collective 'c10d.broadcast_.default' has no DeviceMesh
}

void badCall() {
  meshguard::dist::broadcast_(42, "not a rank");
  // CHECK-MESSAGES: :[[@LINE-1]]:31: error: reference to type 'const std::vector<at::Tensor>' could not bind to an rvalue of type 'int' [clang-diagnostic-error]
}
