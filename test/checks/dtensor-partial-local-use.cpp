// RUN: %check_meshguard %s dtensor-partial-local-use %t -- -- -I%stubs

// to_local() of a DTensor that may be Partial gives each rank its own
// partial contribution; using it as the full value gives a wrong number on
// every rank, silently. Fix: full_tensor() (the reduced value).

#include <meshguard/meshguard.h>
#include <ostream>

using meshguard::DeviceMesh;
using meshguard::Partial;
using meshguard::Replicate;
using meshguard::Shard;

std::ostream &operator<<(std::ostream &OS, const at::Tensor &T);

// The sum of a row-sharded tensor is Partial(sum): its local tensor is one
// rank's sum of its rows.
double lossOfShards(const DeviceMesh &mesh, const at::Tensor &rows) {
  at::Tensor x = meshguard::from_local(rows, mesh, {Shard{0}});
  at::Tensor loss = x.pow(2).sum();
  at::Tensor local = meshguard::to_local(loss);
  return local.item<double>();
  // CHECK-NOTES: :[[@LINE-1]]:10: warning: 'item()' reads one rank's share of a DTensor that may be Partial, as if it were the whole value: each rank gets its own wrong number, with no error [dtensor-partial-local-use]
  // CHECK-NOTES: :[[@LINE-3]]:22: note: 'to_local()' gives each rank only its own partial contribution; full_tensor() gives the reduced value
  // CHECK-NOTES: :[[@LINE-5]]:21: note: the DTensor may become Partial here
  // CHECK-FIXES: at::Tensor local = meshguard::full_tensor(loss);
}

// Twin: full_tensor() is the reduced value.
double lossOfShardsFull(const DeviceMesh &mesh, const at::Tensor &rows) {
  at::Tensor x = meshguard::from_local(rows, mesh, {Shard{0}});
  at::Tensor loss = x.pow(2).sum();
  return meshguard::full_tensor(loss).item<double>();
}

// Twin: a reduction over the dim that is not sharded stays Shard(0), and
// Replicate values have nothing to reduce.
double notPartial(const DeviceMesh &mesh, const at::Tensor &rows) {
  at::Tensor x = meshguard::from_local(rows, mesh, {Shard{0}});
  at::Tensor perRow = x.sum(1);
  at::Tensor r = meshguard::distribute_tensor(rows, mesh, {Replicate{}});
  double a = meshguard::to_local(perRow).sum().item<double>();
  return a + meshguard::to_local(r.sum()).item<double>();
}

// A Partial placement spelled out, through linear ops (still one rank's
// share) to a non-linear one.
at::Tensor explicitPartial(const DeviceMesh &mesh, const at::Tensor &t) {
  at::Tensor grad = meshguard::from_local(t, mesh, {Partial{}});
  at::Tensor scaled = meshguard::to_local(grad) * 0.5;
  at::Tensor norm = scaled.pow(2);
  // CHECK-NOTES: :[[@LINE-1]]:21: warning: 'aten::pow' is applied to one rank's share of a DTensor that may be Partial
  // CHECK-NOTES: :[[@LINE-3]]:23: note: 'to_local()' gives each rank only its own partial contribution
  // CHECK-NOTES: :[[@LINE-5]]:21: note: the DTensor may become Partial here
  // CHECK-FIXES: at::Tensor scaled = meshguard::full_tensor(grad) * 0.5;
  return norm;
}

// Twin: linear ops on the share, then an all-reduce: the right way by hand.
at::Tensor explicitPartialReduced(const DeviceMesh &mesh, const at::Tensor &t) {
  at::Tensor grad = meshguard::from_local(t, mesh, {Partial{}});
  at::Tensor scaled = meshguard::to_local(grad) * 0.5;
  meshguard::guarded::all_reduce_({scaled}, mesh);
  return scaled.pow(2);
}

// Printed and compared.
void printed(std::ostream &os, const DeviceMesh &mesh, const at::Tensor &t) {
  at::Tensor m = meshguard::from_local(t, mesh, {Shard{1}}).mm(
      meshguard::from_local(t, mesh, {Shard{0}}));
  at::Tensor local = meshguard::to_local(m);
  os << local;
  // CHECK-NOTES: :[[@LINE-1]]:6: warning: this prints one rank's share
  // CHECK-NOTES: :[[@LINE-3]]:22: note: 'to_local()' gives
  // CHECK-NOTES: :[[@LINE-6]]:18: note: the DTensor may become Partial here
  at::Tensor big = local > 1.0;
  // CHECK-NOTES: :[[@LINE-1]]:26: warning: 'aten::gt' is applied to one rank's share
  // CHECK-NOTES: :[[@LINE-7]]:22: note: 'to_local()' gives
  // CHECK-NOTES: :[[@LINE-10]]:18: note: the DTensor may become Partial here
}

// Through a helper: the warning at the call, a note at the use inside.
double scalarOf(const at::Tensor &t) { return t.item<double>(); }

double throughHelper(const DeviceMesh &mesh, const at::Tensor &rows) {
  at::Tensor x = meshguard::from_local(rows, mesh, {Shard{0}});
  return scalarOf(meshguard::to_local(x.mean()));
  // CHECK-NOTES: :[[@LINE-1]]:10: warning: 'scalarOf' uses one rank's share
  // CHECK-NOTES: :[[@LINE-6]]:47: note: inside 'scalarOf', the parameter is used as a full value here
  // CHECK-NOTES: :[[@LINE-3]]:19: note: 'to_local()' gives
  // CHECK-NOTES: :[[@LINE-4]]:39: note: the DTensor may become Partial here
}

// A helper that returns a Partial DTensor.
at::Tensor rowSum(const DeviceMesh &mesh, const at::Tensor &rows) {
  return meshguard::from_local(rows, mesh, {Shard{0}}).sum();
}

void savedFromHelper(const DeviceMesh &mesh, const at::Tensor &rows) {
  at::Tensor local = meshguard::to_local(rowSum(mesh, rows));
  torch::save(local, "sum.pt");
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: this saves one rank's share
  // CHECK-NOTES: :[[@LINE-3]]:22: note: 'to_local()' gives
  // CHECK-NOTES: :[[@LINE-8]]:10: note: the DTensor may become Partial here
}

// Twin: on one path only, the share is reduced first.
double reducedOnEveryPath(const DeviceMesh &mesh, const at::Tensor &rows,
                          bool full) {
  at::Tensor x = meshguard::from_local(rows, mesh, {Shard{0}}).sum();
  at::Tensor v = meshguard::full_tensor(x);
  if (full)
    v = meshguard::full_tensor(x) * 2;
  return v.item<double>();
}

// matmul decomposes into mm: S(1) x S(0) is Partial, S(0) x Replicate is not.
double matmulPartial(const DeviceMesh &mesh, const at::Tensor &a,
                     const at::Tensor &b) {
  at::Tensor p = at::matmul(meshguard::from_local(a, mesh, {Shard{1}}),
                            meshguard::from_local(b, mesh, {Shard{0}}));
  at::Tensor rows = at::matmul(meshguard::from_local(a, mesh, {Shard{0}}),
                               meshguard::from_local(b, mesh, {Replicate{}}));
  double r = meshguard::to_local(rows).sum(1).median().item<double>();
  return r + meshguard::to_local(p).item<double>();
  // CHECK-NOTES: :[[@LINE-1]]:14: warning: 'item()' reads one rank's share
  // CHECK-NOTES: :[[@LINE-2]]:14: note: 'to_local()' gives
  // CHECK-NOTES: :[[@LINE-8]]:18: note: the DTensor may become Partial here
  // CHECK-FIXES: return r + meshguard::full_tensor(p).item<double>();
}

// Through a field of a struct (a parameter or a local), until the field or
// the struct gets a new value.
struct Metrics {
  at::Tensor loss;
  at::Tensor count;
};

double fieldShare(const DeviceMesh &mesh, const at::Tensor &rows,
                  Metrics &m) {
  m.loss = meshguard::to_local(meshguard::from_local(rows, mesh, {Shard{0}}).sum());
  m.count = rows.sum();
  double v = m.loss.item<double>();
  // CHECK-NOTES: :[[@LINE-1]]:14: warning: 'item()' reads one rank's share
  // CHECK-NOTES: :[[@LINE-4]]:12: note: 'to_local()' gives
  // CHECK-NOTES: :[[@LINE-5]]:32: note: the DTensor may become Partial here
  // CHECK-FIXES: m.loss = meshguard::full_tensor(meshguard::from_local(rows, mesh, {Shard{0}}).sum());
  Metrics fresh;
  fresh.loss = m.loss;
  fresh = Metrics();
  return v + m.count.item<double>() + fresh.loss.item<double>();
}
