// RUN: %check_meshguard %s dtensor-op-without-sharding-rule %t -- -- -I%stubs

// Ops the runtime shards now, and ops that libtorch decomposes before the
// DTensor kernel (issue #44): softmax and log_softmax are
// CompositeImplicitAutograd over _softmax and _log_softmax, which have a
// rule; argmax, sort, equal, any, _foreach_norm have rules; group_norm and
// cross_entropy_loss decompose into native_group_norm and nll_loss2d_forward
// (on a 3-D input), which have rules. None is reported, reached directly,
// through a module's output, a lambda or a helper; histc and trace still
// are (the runtime refuses them on a sharded operand).

#include <meshguard/meshguard.h>

using meshguard::DeviceMesh;
using meshguard::Replicate;
using meshguard::Shard;

at::Tensor classify(const DeviceMesh &mesh, torch::nn::Linear &head,
                    const at::Tensor &tokens) {
  auto x = meshguard::from_local(tokens, mesh, {Shard{0}});
  auto logits = head(x);
  auto probs = logits.softmax(-1);
  auto logp = at::log_softmax(logits, 1);
  auto top = probs.argmax(1);
  auto sorted = std::get<0>(logp.sort(1));
  bool anyTop = top.any().item<bool>();
  return anyTop ? sorted : logp;
}

double norms(const DeviceMesh &mesh, const at::Tensor &a, const at::Tensor &b) {
  auto x = meshguard::from_local(a, mesh, {Shard{0}});
  auto y = meshguard::from_local(b, mesh, {Shard{0}});
  auto n = at::_foreach_norm({x, y});
  bool same = x.equal(y);
  auto g = at::group_norm(x, 2);
  auto l = at::cross_entropy_loss(x, y);
  auto lossOf = [](const at::Tensor &t) { return t.log_softmax(1); };
  return same ? 0.0 : lossOf(x).sum().item<double>() + l.item<double>();
}

at::Tensor rowsHistogram(const DeviceMesh &mesh, const at::Tensor &rows) {
  auto x = meshguard::from_local(rows, mesh, {Shard{0}});
  auto probs = x.softmax(1);
  return probs.histc(10);
  // CHECK-NOTES: :[[@LINE-1]]:16: warning: 'aten::histc' has no sharding rule in meshguard's runtime, and this call gives it a DTensor that may be sharded
  // CHECK-NOTES: :[[@LINE-4]]:12: note: the DTensor gets its sharded placements here
}
