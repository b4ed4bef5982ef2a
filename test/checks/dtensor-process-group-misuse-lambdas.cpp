// RUN: %check_meshguard %s dtensor-process-group-misuse %t -- -- -I%stubs

// DTensors reaching a raw c10d collective through a lambda or a function
// object the function calls directly, given the tensor, the vector or the
// module as a parameter: reported at the call, with a note at the collective
// inside. A lambda's captures carry what they were where it was made (see
// dtensor-collective-without-mesh-lambda-captures.cpp), so a collective on a
// captured DTensor is reported inside the lambda itself.
#include <meshguard/meshguard.h>
#include <torch/csrc/distributed/c10d/Ops.hpp>
#include <torch/torch.h>

using meshguard::DeviceMesh;
using meshguard::Replicate;

struct NetImpl : torch::nn::Module {
  torch::nn::Linear encoder{nullptr}, head{nullptr};
};
class Net : public torch::nn::ModuleHolder<NetImpl> {
public:
  using torch::nn::ModuleHolder<NetImpl>::ModuleHolder;
};

void lambdaParameters(c10d::ProcessGroup &pg, const DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  std::vector<at::Tensor> ws = {w};
  auto bcast = [&pg](std::vector<at::Tensor> &ts) { pg.broadcast(ts); };
  bcast(ws);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: call to 'bcast' gives raw process-group collective 'c10d.broadcast_.default' a DTensor ('ws'): c10d collectives work on local tensors [dtensor-process-group-misuse]
  // CHECK-NOTES: :[[@LINE-3]]:53: note: the collective is called here; its tensors come from that parameter
  auto reduceOne = [&](const at::Tensor &t) {
    std::vector<at::Tensor> ts = {t};
    pg.allreduce(ts);
  };
  reduceOne(w);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: call to 'reduceOne' gives raw process-group collective 'c10d.allreduce_.default' a DTensor ('w')
  // CHECK-NOTES: :[[@LINE-4]]:5: note: the collective is called here
  auto byValue = [&pg](at::Tensor t) {
    std::vector<at::Tensor> ts = {t};
    pg.allreduce(ts);
  };
  byValue(w);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: call to 'byValue' gives raw process-group collective 'c10d.allreduce_.default' a DTensor ('w')
  // CHECK-NOTES: :[[@LINE-4]]:5: note: the collective is called here
  // Negative twin: the lambda is given the local tensor.
  reduceOne(meshguard::to_local(w));
}

// The DDP _sync_module_states shape as a lambda taking the module.
void lambdaModule(c10d::ProcessGroup &pg, const DeviceMesh &mesh) {
  Net net;
  auto syncStates = [&pg](torch::nn::Module &m) {
    std::vector<at::Tensor> ps = m.parameters();
    pg.broadcast(ps);
  };
  meshguard::distribute_module(*net, mesh);
  syncStates(*net);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: call to 'syncStates' gives raw process-group collective 'c10d.broadcast_.default' a DTensor ('*net')
  // CHECK-NOTES: :[[@LINE-5]]:5: note: the collective is called here
}

// Negative twin: the module was never distributed.
void lambdaModuleNotDistributed(c10d::ProcessGroup &pg) {
  Net net;
  auto syncStates = [&pg](torch::nn::Module &m) {
    std::vector<at::Tensor> ps = m.parameters();
    pg.broadcast(ps);
  };
  syncStates(*net);
}

// A function object: the same through its operator().
struct AllReduceAll {
  c10d::ProcessGroup &pg;
  void operator()(std::vector<at::Tensor> &ts) const { pg.allreduce(ts); }
};
struct SyncModule {
  c10d::ProcessGroup *pg;
  void operator()(torch::nn::Module &m) {
    std::vector<at::Tensor> ps;
    for (auto &p : m.parameters())
      ps.push_back(p);
    pg->broadcast(ps);
  }
};

void functors(c10d::ProcessGroup &pg, const DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  std::vector<at::Tensor> ws = {w};
  AllReduceAll reduceAll{pg};
  reduceAll(ws);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: call to 'reduceAll' gives raw process-group collective 'c10d.allreduce_.default' a DTensor ('ws')
  // CHECK-NOTES: :75:56: note: the collective is called here
  Net net;
  meshguard::distribute_module(*net, mesh);
  SyncModule sync{&pg};
  sync(*net);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: call to 'sync' gives raw process-group collective 'c10d.broadcast_.default' a DTensor ('*net')
  // CHECK-NOTES: :83:5: note: the collective is called here
  // Negative twin: plain tensors.
  std::vector<at::Tensor> plain = {torch::zeros({4})};
  reduceAll(plain);
}

// Captured by copy or by reference (never changed after): the collective
// inside the lambda sees the DTensor, and is reported there.
void captures(c10d::ProcessGroup &pg, const DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  auto byCopy = [=, &pg] {
    std::vector<at::Tensor> ts = {w};
    pg.allreduce(ts);
    // CHECK-NOTES: :[[@LINE-1]]:5: warning: raw process-group collective 'c10d.allreduce_.default' is given a DTensor ('ts')
    // CHECK-NOTES: :[[@LINE-2]]:18: note: 'ts' holds a DTensor here
    // CHECK-NOTES: :[[@LINE-3]]:5: note: to keep the tensors distributed, call the mesh-aware collective 'meshguard::dist::all_reduce_' instead
    // CHECK-FIXES: {{^}}    std::vector<at::Tensor> ts = {meshguard::to_local(w)};
  };
  byCopy();
  auto byRef = [&] {
    std::vector<at::Tensor> ts = {w};
    pg.allreduce(ts);
    // CHECK-NOTES: :[[@LINE-1]]:5: warning: raw process-group collective 'c10d.allreduce_.default' is given a DTensor ('ts')
    // CHECK-NOTES: :[[@LINE-2]]:18: note: 'ts' holds a DTensor here
    // CHECK-NOTES: :[[@LINE-3]]:5: note: to keep the tensors distributed, call the mesh-aware collective 'meshguard::dist::all_reduce_' instead
    // CHECK-FIXES: {{^}}    std::vector<at::Tensor> ts = {meshguard::to_local(w)};
  };
  byRef();
}

// A module captured by reference is read where the lambda is called:
// reported at the call, with a note at the collective inside. (A vector the
// lambda hands to the raw collective itself is passed by non-const
// reference there, so the lambda counts as changing it: not followed.)
void capturedByReference(c10d::ProcessGroup &pg, const DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  std::vector<at::Tensor> ws;
  auto bcast = [&] { pg.broadcast(ws); };
  ws.push_back(w);
  bcast();
  Net net;
  auto syncStates = [&] {
    std::vector<at::Tensor> ps = net->parameters();
    pg.broadcast(ps);
  };
  meshguard::distribute_module(*net, mesh);
  syncStates();
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: call to 'syncStates' gives raw process-group collective 'c10d.broadcast_.default' a DTensor ('net')
  // CHECK-NOTES: :[[@LINE-5]]:5: note: the collective is called here; its tensors come from that captured variable
}

// Negative twins: the vector holds local tensors, the module is not
// distributed.
void capturedByReferencePlain(c10d::ProcessGroup &pg, const DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  std::vector<at::Tensor> ws;
  auto bcast = [&] { pg.broadcast(ws); };
  ws.push_back(meshguard::to_local(w));
  bcast();
  Net net;
  auto syncStates = [&] {
    std::vector<at::Tensor> ps = net->parameters();
    pg.broadcast(ps);
  };
  syncStates();
}
