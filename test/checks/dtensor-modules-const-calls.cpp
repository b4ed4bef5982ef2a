// RUN: %check_meshguard %s dtensor-collective-without-mesh %t -- -- -I%stubs

// A module handed to code that cannot change it (a const reference or
// pointer: reading its state for a checkpoint, printing it) keeps what is
// known of its parameters; one handed over by non-const reference may be
// distributed there (unknown: no warning).
#include <meshguard/meshguard.h>
#include <torch/torch.h>

using meshguard::DeviceMesh;

void inspect(const torch::nn::Module &M);
void inspectPointer(const torch::nn::Module *M);
void inspectHolder(const torch::nn::Linear &L);
void mayDistribute(torch::nn::Module &M);

void readByConstReference(const DeviceMesh &mesh) {
  torch::nn::Linear head(8, 2);
  inspect(*head);
  meshguard::dist::all_reduce_(head->parameters());
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: collective 'c10d.allreduce_.default' has no DeviceMesh{{.*}} [dtensor-collective-without-mesh]
}

void readByConstPointer(const DeviceMesh &mesh) {
  torch::nn::Linear head(8, 2);
  inspectPointer(head.get());
  meshguard::dist::all_reduce_(head->parameters());
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: collective 'c10d.allreduce_.default' has no DeviceMesh{{.*}} [dtensor-collective-without-mesh]
}

void readTheHolderByConstReference(const DeviceMesh &mesh) {
  torch::nn::Linear head(8, 2);
  inspectHolder(head);
  meshguard::dist::all_reduce_(head->parameters());
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: collective 'c10d.allreduce_.default' has no DeviceMesh{{.*}} [dtensor-collective-without-mesh]
}

// Negative twin: the callee may distribute the module.
void handedOverMutably(const DeviceMesh &mesh) {
  torch::nn::Linear head(8, 2);
  mayDistribute(*head);
  meshguard::dist::all_reduce_(head->parameters());
}
