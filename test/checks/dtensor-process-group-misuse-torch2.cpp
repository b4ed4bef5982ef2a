// REQUIRES: runtime
// RUN: %check_meshguard %if torch2 %{-check-suffixes=ALL,T2%} %else %{-check-suffixes=ALL,T1%} \
// RUN:   %s dtensor-process-group-misuse %t -- -- -I%runtime_include %torch_cflags
// The fixed copy (%t.cpp, every fix-it applied) compiles against the same headers:
// RUN: %cxx -std=c++17 -fsyntax-only -Wno-deprecated-declarations -I%runtime_include %torch_cflags %t.cpp

// DTensors handed to the raw c10d collectives of the libtorch that
// %torch_cflags reach: ProcessGroup's methods, c10d::Backend's, and the
// backends' overrides, held by value, reference, pointer or intrusive_ptr,
// as themselves or as their c10d base. Slow (~20 s: the real headers, parsed
// twice). CHECK-*-ALL: every libtorch; -T2: 2.x only (the torch2 lit
// feature: getBackend(), the coalesced tensor forms, all_gather_single);
// -T1: 1.13 only (c10d::ops, gone in 2.x).

#include <torch/csrc/distributed/c10d/Backend.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/torch.h>
#include <torch/version.h>
#if TORCH_VERSION_MAJOR < 2
#include <torch/csrc/distributed/c10d/Ops.hpp>
#endif
#include <meshguard/meshguard.h>

using meshguard::DeviceMesh;
using meshguard::Replicate;

// The c10d class ProcessGroupGloo derives from: 2.x's Gloo is a Backend
// behind a ProcessGroup, 1.13's is itself a ProcessGroup.
#if TORCH_VERSION_MAJOR >= 2
using GlooBase = c10d::Backend;
#else
using GlooBase = c10d::ProcessGroup;
#endif

// ProcessGroupNCCL as user code sees it: a c10d::Backend (2.x) whose
// overrides are declared in its header and defined in libtorch_cuda.so. Its
// real header needs USE_C10D_NCCL and CUDA's and NCCL's headers (cuda.h,
// cusparse.h, nccl.h, ...), which the CPU wheel and Debian's libtorch lack,
// so the same shape is declared here.
class NcclLikeBackend final : public c10d::Backend {
public:
  using c10d::Backend::Backend;
  c10::intrusive_ptr<c10d::Work>
  broadcast(std::vector<at::Tensor> &tensors,
            const c10d::BroadcastOptions &opts = c10d::BroadcastOptions()) override;
  c10::intrusive_ptr<c10d::Work>
  allreduce(std::vector<at::Tensor> &tensors,
            const c10d::AllreduceOptions &opts = c10d::AllreduceOptions()) override;
  c10::intrusive_ptr<c10d::Work> reduce_scatter(
      std::vector<at::Tensor> &outputTensors,
      std::vector<std::vector<at::Tensor>> &inputTensors,
      const c10d::ReduceScatterOptions &opts = c10d::ReduceScatterOptions()) override;
};

// c10d::ProcessGroup's methods.

void pgBroadcast(c10d::ProcessGroup &pg, const DeviceMesh &mesh) {
  at::Tensor param = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  std::vector<at::Tensor> ts = {param};
  pg.broadcast(ts);
  // CHECK-NOTES-ALL: :[[@LINE-1]]:3: warning: raw process-group collective 'c10d.broadcast_.default' is given a DTensor ('ts'): c10d collectives work on local tensors; pass meshguard::to_local(...) of it [dtensor-process-group-misuse]
  // CHECK-NOTES-ALL: :[[@LINE-2]]:16: note: 'ts' holds a DTensor here
  // CHECK-NOTES-ALL: :[[@LINE-3]]:3: note: to keep the tensors distributed, call the mesh-aware collective 'meshguard::dist::broadcast_' instead
  // CHECK-FIXES-ALL: std::vector<at::Tensor> ts = {meshguard::to_local(param)};
}

void pgAllreduce(const c10::intrusive_ptr<c10d::ProcessGroup> &pg, const DeviceMesh &mesh) {
  at::Tensor grad = meshguard::from_local(torch::zeros({4}), mesh, {Replicate{}});
  std::vector<at::Tensor> grads{grad};
  pg->allreduce(grads);
  // CHECK-NOTES-ALL: :[[@LINE-1]]:3: warning: raw process-group collective 'c10d.allreduce_.default' is given a DTensor ('grads')
  // CHECK-NOTES-ALL: :[[@LINE-2]]:17: note: 'grads' holds a DTensor here
  // CHECK-NOTES-ALL: :[[@LINE-3]]:3: note: to keep the tensors distributed, call the mesh-aware collective 'meshguard::dist::all_reduce_' instead
  // CHECK-FIXES-ALL: std::vector<at::Tensor> grads{meshguard::to_local(grad)};
}

void pgAllgather(c10d::ProcessGroup *pg, const DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  std::vector<std::vector<at::Tensor>> out = {{torch::empty({4}), torch::empty({4})}};
  std::vector<at::Tensor> in = {w};
  pg->allgather(out, in);
  // CHECK-NOTES-ALL: :[[@LINE-1]]:3: warning: raw process-group collective 'c10d.allgather_.default' is given a DTensor ('in')
  // CHECK-NOTES-ALL: :[[@LINE-2]]:22: note: 'in' holds a DTensor here
  // CHECK-NOTES-ALL: :[[@LINE-3]]:3: note: to keep the tensors distributed, call the mesh-aware collective 'meshguard::dist::all_gather' instead
  // CHECK-FIXES-ALL: std::vector<at::Tensor> in = {meshguard::to_local(w)};
}

void pgAlltoall(c10d::ProcessGroup &pg, const DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  std::vector<at::Tensor> out = {torch::empty({4})};
  std::vector<at::Tensor> in = {w};
  pg.alltoall(out, in);
  // CHECK-NOTES-ALL: :[[@LINE-1]]:3: warning: raw process-group collective 'c10d.alltoall_.default' is given a DTensor ('in')
  // CHECK-NOTES-ALL: :[[@LINE-2]]:20: note: 'in' holds a DTensor here
  // CHECK-FIXES-ALL: std::vector<at::Tensor> in = {meshguard::to_local(w)};
}

void pgRecvAnysource(c10d::ProcessGroup &pg, const DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::zeros({4}), mesh, {Replicate{}});
  std::vector<at::Tensor> buf = {w};
  pg.recvAnysource(buf, /*tag=*/0);
  // CHECK-NOTES-ALL: :[[@LINE-1]]:3: warning: raw process-group collective 'c10d.recv_any_source_.default' is given a DTensor ('buf')
  // CHECK-NOTES-ALL: :[[@LINE-2]]:20: note: 'buf' holds a DTensor here
  // CHECK-FIXES-ALL: std::vector<at::Tensor> buf = {meshguard::to_local(w)};
}

// c10d::Backend's methods.

void backendReduce(c10d::Backend &backend, const DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  std::vector<at::Tensor> ts = {w};
  backend.reduce(ts);
  // CHECK-NOTES-ALL: :[[@LINE-1]]:3: warning: raw process-group collective 'c10d.reduce_.default' is given a DTensor ('ts')
  // CHECK-NOTES-ALL: :[[@LINE-2]]:18: note: 'ts' holds a DTensor here
  // CHECK-FIXES-ALL: std::vector<at::Tensor> ts = {meshguard::to_local(w)};
}

void backendSend(const c10::intrusive_ptr<c10d::Backend> &backend, const DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  std::vector<at::Tensor> ts = {w};
  backend->send(ts, /*dstRank=*/1, /*tag=*/0);
  // CHECK-NOTES-ALL: :[[@LINE-1]]:3: warning: raw process-group collective 'c10d.send.default' is given a DTensor ('ts')
  // CHECK-NOTES-ALL: :[[@LINE-2]]:17: note: 'ts' holds a DTensor here
  // CHECK-FIXES-ALL: std::vector<at::Tensor> ts = {meshguard::to_local(w)};
}

// ProcessGroupGloo: as its c10d base, and as itself (its overrides).

void glooAsBase(const c10::intrusive_ptr<c10d::ProcessGroupGloo> &gloo, const DeviceMesh &mesh) {
  c10::intrusive_ptr<GlooBase> backend = gloo;
  at::Tensor param = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  std::vector<at::Tensor> ts = {param};
  backend->broadcast(ts);
  // CHECK-NOTES-ALL: :[[@LINE-1]]:3: warning: raw process-group collective 'c10d.broadcast_.default' is given a DTensor ('ts')
  // CHECK-NOTES-ALL: :[[@LINE-2]]:22: note: 'ts' holds a DTensor here
  // CHECK-NOTES-ALL: :[[@LINE-3]]:3: note: to keep the tensors distributed, call the mesh-aware collective 'meshguard::dist::broadcast_' instead
  // CHECK-FIXES-ALL: std::vector<at::Tensor> ts = {meshguard::to_local(param)};
}

void glooItself(const c10::intrusive_ptr<c10d::ProcessGroupGloo> &gloo, const DeviceMesh &mesh) {
  at::Tensor grad = meshguard::from_local(torch::ones({4}), mesh, {Replicate{}});
  std::vector<at::Tensor> grads = {grad};
  gloo->allreduce(grads);
  // CHECK-NOTES-ALL: :[[@LINE-1]]:3: warning: raw process-group collective 'c10d.allreduce_.default' is given a DTensor ('grads')
  // CHECK-NOTES-ALL: :[[@LINE-2]]:19: note: 'grads' holds a DTensor here
  // CHECK-NOTES-ALL: :[[@LINE-3]]:3: note: to keep the tensors distributed, call the mesh-aware collective 'meshguard::dist::all_reduce_' instead
  // CHECK-FIXES-ALL: std::vector<at::Tensor> grads = {meshguard::to_local(grad)};
  c10d::ProcessGroupGloo &ref = *gloo;
  std::vector<std::vector<at::Tensor>> out = {{torch::empty({4})}};
  std::vector<at::Tensor> in = {meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}})};
  ref.gather(out, in);
  // CHECK-NOTES-ALL: :[[@LINE-1]]:3: warning: raw process-group collective 'c10d.gather_.default' is given a DTensor ('in')
  // CHECK-NOTES-ALL: :[[@LINE-2]]:19: note: 'in' holds a DTensor here
  // CHECK-FIXES-ALL: std::vector<at::Tensor> in = {meshguard::to_local(meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}}))};
}

void glooByValue(const c10::intrusive_ptr<c10d::Store> &store, const DeviceMesh &mesh) {
  c10d::ProcessGroupGloo gloo(store, /*rank=*/0, /*size=*/2);
  at::Tensor w = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  std::vector<at::Tensor> ts = {w};
  gloo.send(ts, /*dstRank=*/1, /*tag=*/0);
  // CHECK-NOTES-ALL: :[[@LINE-1]]:3: warning: raw process-group collective 'c10d.send.default' is given a DTensor ('ts')
  // CHECK-NOTES-ALL: :[[@LINE-2]]:13: note: 'ts' holds a DTensor here
  // CHECK-FIXES-ALL: std::vector<at::Tensor> ts = {meshguard::to_local(w)};
}

// A ProcessGroupNCCL-shaped Backend: as itself and as a c10d::Backend.

void ncclItself(NcclLikeBackend &nccl, const DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({8}), mesh, {Replicate{}});
  std::vector<at::Tensor> out = {w};
  std::vector<std::vector<at::Tensor>> in = {{torch::randn({4}), torch::randn({4})}};
  nccl.reduce_scatter(out, in);
  // CHECK-NOTES-ALL: :[[@LINE-1]]:3: warning: raw process-group collective 'c10d.reduce_scatter_.default' is given a DTensor ('out')
  // CHECK-NOTES-ALL: :[[@LINE-2]]:23: note: 'out' holds a DTensor here
  // CHECK-NOTES-ALL: :[[@LINE-3]]:3: note: to keep the tensors distributed, call the mesh-aware collective 'meshguard::dist::reduce_scatter' instead
  // CHECK-FIXES-ALL: std::vector<at::Tensor> out = {meshguard::to_local(w)};
}

void ncclAsBackend(const c10::intrusive_ptr<NcclLikeBackend> &nccl, const DeviceMesh &mesh) {
  c10::intrusive_ptr<c10d::Backend> backend = nccl;
  at::Tensor grad = meshguard::from_local(torch::ones({4}), mesh, {Replicate{}});
  std::vector<at::Tensor> grads = {grad};
  backend->allreduce(grads);
  // CHECK-NOTES-ALL: :[[@LINE-1]]:3: warning: raw process-group collective 'c10d.allreduce_.default' is given a DTensor ('grads')
  // CHECK-NOTES-ALL: :[[@LINE-2]]:22: note: 'grads' holds a DTensor here
  // CHECK-NOTES-ALL: :[[@LINE-3]]:3: note: to keep the tensors distributed, call the mesh-aware collective 'meshguard::dist::all_reduce_' instead
  // CHECK-FIXES-ALL: std::vector<at::Tensor> grads = {meshguard::to_local(grad)};
  std::vector<at::Tensor> ts = {meshguard::to_local(grad)};
  nccl->broadcast(ts);
}

// The to_local() twins: local tensors, nothing to report.

void pgBroadcastLocal(c10d::ProcessGroup &pg, const DeviceMesh &mesh) {
  at::Tensor param = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  std::vector<at::Tensor> ts = {meshguard::to_local(param)};
  pg.broadcast(ts);
  std::vector<std::vector<at::Tensor>> out = {{torch::empty({4})}};
  pg.allgather(out, ts);
}

void glooAsBaseLocal(const c10::intrusive_ptr<c10d::ProcessGroupGloo> &gloo, const DeviceMesh &mesh) {
  c10::intrusive_ptr<GlooBase> backend = gloo;
  at::Tensor param = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  std::vector<at::Tensor> ts = {meshguard::to_local(param)};
  backend->broadcast(ts);
  gloo->allreduce(ts);
}

void ncclLocal(NcclLikeBackend &nccl, const DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({8}), mesh, {Replicate{}});
  std::vector<at::Tensor> out = {meshguard::to_local(w)};
  std::vector<std::vector<at::Tensor>> in = {{torch::randn({4}), torch::randn({4})}};
  nccl.reduce_scatter(out, in);
}

#if TORCH_VERSION_MAJOR >= 2
// libtorch 2.x only.

// The NCCL backend as 2.x code gets it: from the ProcessGroup.
void ncclFromGroup(c10d::ProcessGroup &pg, const DeviceMesh &mesh) {
  c10::intrusive_ptr<c10d::Backend> nccl = pg.getBackend(c10::DeviceType::CUDA);
  at::Tensor grad = meshguard::from_local(torch::ones({4}), mesh, {Replicate{}});
  std::vector<at::Tensor> grads = {grad};
  nccl->allreduce(grads);
  // CHECK-NOTES-T2: :[[@LINE-1]]:3: warning: raw process-group collective 'c10d.allreduce_.default' is given a DTensor ('grads')
  // CHECK-NOTES-T2: :[[@LINE-2]]:19: note: 'grads' holds a DTensor here
  // CHECK-NOTES-T2: :[[@LINE-3]]:3: note: to keep the tensors distributed, call the mesh-aware collective 'meshguard::dist::all_reduce_' instead
  // CHECK-FIXES-T2: std::vector<at::Tensor> grads = {meshguard::to_local(grad)};
}

void pgAllGatherSingle(c10d::ProcessGroup &pg, const DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  at::Tensor out = torch::empty({8});
  pg.all_gather_single(out, w);
  // CHECK-NOTES-T2: :[[@LINE-1]]:3: warning: raw process-group collective 'c10d._allgather_base_.default' is given a DTensor ('w')
  // CHECK-NOTES-T2: :[[@LINE-4]]:18: note: 'w' is a DTensor: it comes from distribute_tensor() here
}

void backendCoalesced(const c10::intrusive_ptr<c10d::Backend> &backend, const DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  std::vector<at::Tensor> outs = {torch::empty({8})};
  std::vector<at::Tensor> ins = {w};
  backend->allgather_into_tensor_coalesced(outs, ins);
  // CHECK-NOTES-T2: :[[@LINE-1]]:3: warning: raw process-group collective 'c10d.allgather_into_tensor_coalesced_.default' is given a DTensor ('ins')
  // CHECK-NOTES-T2: :[[@LINE-2]]:50: note: 'ins' holds a DTensor here
  // CHECK-FIXES-T2: std::vector<at::Tensor> ins = {meshguard::to_local(w)};
}

void pgReduceScatterCoalesced(c10d::ProcessGroup &pg, const DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({8}), mesh, {Replicate{}});
  std::vector<at::Tensor> outs = {torch::empty({4})};
  std::vector<at::Tensor> ins = {w};
  pg.reduce_scatter_single_coalesced(outs, ins);
  // CHECK-NOTES-T2: :[[@LINE-1]]:3: warning: raw process-group collective 'c10d.reduce_scatter_tensor_coalesced_.default' is given a DTensor ('ins')
  // CHECK-NOTES-T2: :[[@LINE-2]]:44: note: 'ins' holds a DTensor here
  // CHECK-FIXES-T2: std::vector<at::Tensor> ins = {meshguard::to_local(w)};
}

void allGatherSingleLocal(c10d::ProcessGroup &pg, const DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  at::Tensor lw = meshguard::to_local(w);
  at::Tensor out = torch::empty({8});
  pg.all_gather_single(out, lw);
  c10::intrusive_ptr<c10d::Backend> nccl = pg.getBackend(c10::DeviceType::CUDA);
  std::vector<at::Tensor> ts = {lw};
  nccl->allreduce(ts);
}
#else
// libtorch 1.13 only: the dispatcher ops of c10d/Ops.hpp.

void opsReduce(const c10::intrusive_ptr<c10d::ProcessGroup> &pg, const DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  c10d::ops::reduce(pg, {w});
  // CHECK-NOTES-T1: :[[@LINE-1]]:3: warning: raw process-group collective 'c10d.reduce_.default' is given a DTensor ('w')
  // CHECK-NOTES-T1: :[[@LINE-3]]:18: note: 'w' is a DTensor: it comes from distribute_tensor() here
  // CHECK-FIXES-T1: c10d::ops::reduce(pg, {meshguard::to_local(w)});
  c10d::ops::reduce(pg, {meshguard::to_local(w)});
}
#endif
