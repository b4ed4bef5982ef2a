// RUN: %check_meshguard %s dtensor-process-group-misuse %t -- -- -I%stubs
// RUN: %cxx -fsyntax-only -std=c++17 -I%stubs %t.cpp

// The to_local() fix-its: every element that is surely a DTensor is wrapped,
// variables and expressions alike, exactly once however many collectives the
// container reaches. The fixed file must compile.

#include <meshguard/meshguard.h>
#include <torch/csrc/distributed/c10d/Ops.hpp>

using meshguard::DeviceMesh;
using meshguard::Replicate;

// One vector, two raw collectives: the first one's fix-it wraps the element,
// once (two fix-its applied together gave to_local(to_local(w)), which
// throws at run time).
void twoCollectives(c10d::ProcessGroup &pg, const DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::zeros({4}), mesh, {Replicate{}});
  std::vector<at::Tensor> ts{w};
  pg.broadcast(ts)->wait();
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: raw process-group collective 'c10d.broadcast_.default' is given a DTensor ('ts'): c10d collectives work on local tensors; pass meshguard::to_local(...) of it [dtensor-process-group-misuse]
  // CHECK-NOTES: :[[@LINE-2]]:16: note: 'ts' holds a DTensor here
  // CHECK-NOTES: :[[@LINE-3]]:3: note: to keep the tensors distributed, call the mesh-aware collective 'meshguard::dist::broadcast_' instead
  pg.allreduce(ts)->wait();
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: raw process-group collective 'c10d.allreduce_.default' is given a DTensor ('ts')
  // CHECK-NOTES: :[[@LINE-2]]:16: note: 'ts' holds a DTensor here
  // CHECK-NOTES: :[[@LINE-7]]:3: note: the fix-it of this collective wraps the DTensors given to both in meshguard::to_local(...)
  // CHECK-NOTES: :[[@LINE-4]]:3: note: to keep the tensors distributed, call the mesh-aware collective 'meshguard::dist::all_reduce_' instead
  // CHECK-FIXES: {{^}}  std::vector<at::Tensor> ts{meshguard::to_local(w)};
}

// Expressions that are surely DTensors are wrapped too; plain ones are not.
void expressions(c10d::ProcessGroup &pg, const DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::zeros({4}), mesh, {Replicate{}});
  at::Tensor p = torch::ones({4});
  std::vector<at::Tensor> ts = {w, w * 2, p, meshguard::from_local(p, mesh, {Replicate{}})};
  pg.broadcast(ts);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: raw process-group collective 'c10d.broadcast_.default' is given a DTensor ('ts')
  // CHECK-NOTES: :[[@LINE-2]]:16: note: 'ts' holds a DTensor here
  // CHECK-NOTES: :[[@LINE-3]]:3: note: to keep the tensors distributed, call the mesh-aware collective 'meshguard::dist::broadcast_' instead
  // CHECK-FIXES: {{^}}  std::vector<at::Tensor> ts = {meshguard::to_local(w), meshguard::to_local(w * 2), p, meshguard::to_local(meshguard::from_local(p, mesh, {Replicate{}}))};
}

// A braced list at the call.
void listAtCall(const c10::intrusive_ptr<c10d::ProcessGroup> &pg,
                const DeviceMesh &mesh) {
  at::Tensor g = meshguard::from_local(torch::zeros({4}), mesh, {Replicate{}});
  c10d::ops::allreduce(pg, {g.mul(g), torch::ones({4})});
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: raw process-group collective 'c10d.allreduce_.default' is given a DTensor ('g.mul(g)')
  // CHECK-NOTES: :[[@LINE-3]]:18: note: 'g.mul(g)' is a DTensor: it comes from from_local() here
  // CHECK-NOTES: :[[@LINE-3]]:3: note: to keep the tensors distributed, call the mesh-aware collective 'meshguard::dist::all_reduce_' instead
  // CHECK-FIXES: {{^}}  c10d::ops::allreduce(pg, {meshguard::to_local(g.mul(g)), torch::ones({4})});
}

// An element is judged where the declaration copies it: the copy in `ts` is
// a DTensor even though `w` is local by the time of the call.
void judgedWhereCopied(c10d::ProcessGroup &pg, const DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::zeros({4}), mesh, {Replicate{}});
  std::vector<at::Tensor> ts = {w};
  w = meshguard::to_local(w);
  pg.broadcast(ts);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: raw process-group collective 'c10d.broadcast_.default' is given a DTensor ('ts')
  // CHECK-NOTES: :[[@LINE-2]]:16: note: 'ts' holds a DTensor here
  // CHECK-NOTES: :[[@LINE-3]]:3: note: to keep the tensors distributed, call the mesh-aware collective 'meshguard::dist::broadcast_' instead
  // CHECK-FIXES: {{^}}  std::vector<at::Tensor> ts = {meshguard::to_local(w)};
}

// An element that is a DTensor on some path only gets a note, no fix-it;
// the sure one is still wrapped.
void someMaybe(c10d::ProcessGroup &pg, const DeviceMesh &mesh, bool c) {
  at::Tensor w = meshguard::distribute_tensor(torch::zeros({4}), mesh, {Replicate{}});
  at::Tensor t = torch::randn({4});
  if (c)
    t = meshguard::distribute_tensor(t, mesh, {Replicate{}});
  std::vector<at::Tensor> ts = {w, t};
  pg.broadcast(ts);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: raw process-group collective 'c10d.broadcast_.default' is given a DTensor ('ts')
  // CHECK-NOTES: :[[@LINE-2]]:16: note: 'ts' holds a DTensor here
  // CHECK-NOTES: :[[@LINE-4]]:36: note: 't' may be a DTensor on some path: no fix-it for it; call meshguard::to_local(...) on it where it is one
  // CHECK-NOTES: :[[@LINE-4]]:3: note: to keep the tensors distributed, call the mesh-aware collective 'meshguard::dist::broadcast_' instead
  // CHECK-FIXES: {{^}}  std::vector<at::Tensor> ts = {meshguard::to_local(w), t};
}

// A DTensor element spelt by a macro cannot be rewritten: no fix-it at all
// (a partial one would still hand over a DTensor), a note says so.
#define WEIGHT w
void inMacro(c10d::ProcessGroup &pg, const DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::zeros({4}), mesh, {Replicate{}});
  std::vector<at::Tensor> ts = {WEIGHT, w * 2};
  pg.broadcast(ts);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: raw process-group collective 'c10d.broadcast_.default' is given a DTensor ('ts')
  // CHECK-NOTES: :[[@LINE-2]]:16: note: 'ts' holds a DTensor here
  // CHECK-NOTES: :[[@LINE-4]]:33: note: 'w' is a DTensor but cannot be rewritten here (macro): wrap it in meshguard::to_local(...) by hand
  // CHECK-NOTES: :[[@LINE-8]]:16: note: expanded from macro 'WEIGHT'
  // CHECK-NOTES: :[[@LINE-5]]:3: note: to keep the tensors distributed, call the mesh-aware collective 'meshguard::dist::broadcast_' instead
  // CHECK-FIXES: {{^}}  std::vector<at::Tensor> ts = {WEIGHT, w * 2};
}

// Negative twins: local and plain elements, reaching two collectives.
void twoCollectivesLocal(c10d::ProcessGroup &pg, const DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::zeros({4}), mesh, {Replicate{}});
  std::vector<at::Tensor> ts{meshguard::to_local(w), meshguard::to_local(w * 2)};
  pg.broadcast(ts)->wait();
  pg.allreduce(ts)->wait();
}

void expressionsPlain(c10d::ProcessGroup &pg) {
  at::Tensor p = torch::ones({4});
  std::vector<at::Tensor> ts = {p, p * 2, p + torch::zeros({4})};
  pg.broadcast(ts);
  pg.allreduce(ts);
}
