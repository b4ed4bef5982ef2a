// RUN: %check_meshguard -check-suffix=CWM %s dtensor-collective-without-mesh %t -- -- -I%stubs
// RUN: %check_meshguard -check-suffix=PG %s dtensor-process-group-misuse %t -- -- -I%stubs
// RUN: %check_meshguard -check-suffix=MIX %s dtensor-mixed-tensor-op %t -- -- -I%stubs

// A local pointer variable initialised with `&x` and never changed after,
// as the argument of a helper's pointer parameter (`sync(p)`) or
// dereferenced for a reference one (`sync(*p)`): followed like `&x` and `x`.
// A pointer variable the function changes (assigned, handed out by
// non-const reference) is unknown, never a finding.
#include <meshguard/meshguard.h>
#include <torch/csrc/distributed/c10d/Ops.hpp>
#include <torch/torch.h>

using meshguard::DeviceMesh;
using meshguard::Replicate;

void repoint(at::Tensor *&p);

// dtensor-collective-without-mesh.
void sync(at::Tensor *t) { meshguard::dist::all_reduce_({*t}); }
void syncRef(const at::Tensor &t) { meshguard::dist::all_reduce_({t}); }

void withoutMesh(const DeviceMesh &mesh) {
  at::Tensor dt = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  at::Tensor local = meshguard::to_local(dt);
  at::Tensor *p = &local;
  sync(p);
  // CHECK-NOTES-CWM: :[[@LINE-1]]:3: warning: call to 'sync' reaches collective 'c10d.allreduce_.default' with no DeviceMesh: argument 'local' is a plain at::Tensor, so the runtime will throw 'found no DeviceMesh from dtensor args for c10d.allreduce_.default' [dtensor-collective-without-mesh]
  // CHECK-NOTES-CWM: :[[@LINE-4]]:22: note: 'local' is a plain tensor: it comes from to_local() here
  // CHECK-NOTES-CWM: :20:28: note: the collective is called here; its tensor arguments come only from that parameter
  syncRef(*p);
  // CHECK-NOTES-CWM: :[[@LINE-1]]:3: warning: call to 'syncRef' reaches collective 'c10d.allreduce_.default' with no DeviceMesh: argument '*p' is a plain at::Tensor
  // CHECK-NOTES-CWM: :[[@LINE-8]]:22: note: '*p' is a plain tensor: it comes from to_local() here
  // CHECK-NOTES-CWM: :21:37: note: the collective is called here; its tensor arguments come only from that parameter
  // Negative twins: a pointer to the DTensor.
  at::Tensor *q = &dt;
  sync(q);
  syncRef(*q);
}

// Negative twins: the pointer changes (to the DTensor here, or somewhere
// the analysis cannot see).
void withoutMeshRepointed(const DeviceMesh &mesh) {
  at::Tensor dt = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  at::Tensor local = meshguard::to_local(dt);
  at::Tensor *p = &local;
  p = &dt;
  sync(p);
  at::Tensor *r = &local;
  repoint(r);
  sync(r);
}

// dtensor-process-group-misuse.
void reduceOne(at::Tensor *t, c10d::ProcessGroup &pg) {
  std::vector<at::Tensor> ts = {*t};
  pg.allreduce(ts);
}
void reduceRef(const at::Tensor &t, c10d::ProcessGroup &pg) {
  std::vector<at::Tensor> ts = {t};
  pg.allreduce(ts);
}

void processGroup(c10d::ProcessGroup &pg, const DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  at::Tensor *p = &w;
  reduceOne(p, pg);
  // CHECK-NOTES-PG: :[[@LINE-1]]:3: warning: call to 'reduceOne' gives raw process-group collective 'c10d.allreduce_.default' a DTensor ('w'): c10d collectives work on local tensors [dtensor-process-group-misuse]
  // CHECK-NOTES-PG: :57:3: note: the collective is called here; its tensors come from that parameter
  reduceRef(*p, pg);
  // CHECK-NOTES-PG: :[[@LINE-1]]:3: warning: call to 'reduceRef' gives raw process-group collective 'c10d.allreduce_.default' a DTensor ('*p')
  // CHECK-NOTES-PG: :61:3: note: the collective is called here; its tensors come from that parameter
  // Negative twins: a pointer to a plain tensor; a pointer changed.
  at::Tensor local = meshguard::to_local(w);
  at::Tensor *q = &local;
  reduceOne(q, pg);
  reduceRef(*q, pg);
  at::Tensor *r = &w;
  r = &local;
  reduceOne(r, pg);
}

// dtensor-mixed-tensor-op.
at::Tensor addNoise(const at::Tensor *t) {
  at::Tensor noise = torch::randn({4});
  return *t + noise;
}
at::Tensor addNoiseRef(const at::Tensor &t) {
  at::Tensor noise = torch::randn({4});
  return t + noise;
}

void mixed(const DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  const at::Tensor *p = &w;
  at::Tensor a = addNoise(p);
  // CHECK-NOTES-MIX: :[[@LINE-1]]:18: warning: call to 'addNoise' makes a tensor op inside it mix the DTensor 'w' with a plain tensor: the runtime throws 'mixed torch.Tensor and DTensor' [dtensor-mixed-tensor-op]
  // CHECK-NOTES-MIX: :86:10: note: the tensor op is here; its other operand is a plain tensor
  at::Tensor b = addNoiseRef(*p);
  // CHECK-NOTES-MIX: :[[@LINE-1]]:18: warning: call to 'addNoiseRef' makes a tensor op inside it mix the DTensor '*p' with a plain tensor
  // CHECK-NOTES-MIX: :90:10: note: the tensor op is here; its other operand is a plain tensor
  // Negative twins: a pointer to a plain tensor; a pointer changed.
  at::Tensor plain = torch::zeros({4});
  const at::Tensor *q = &plain;
  at::Tensor c = addNoise(q);
  at::Tensor d = addNoiseRef(*q);
  const at::Tensor *r = &w;
  r = &plain;
  at::Tensor e = addNoise(r);
}
