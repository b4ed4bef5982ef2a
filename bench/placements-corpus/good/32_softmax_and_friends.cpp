#include <meshguard/meshguard.h>
#include <meshguard/runtime/Parallelize.h>
#include <ostream>

using namespace meshguard;
std::ostream &operator<<(std::ostream &OS, const at::Tensor &T);

// Classification metrics on a batch-sharded model output: softmax and
// log_softmax decompose into _softmax and _log_softmax, and argmax, sort,
// any, equal, group_norm, cross_entropy_loss and _foreach_norm all run.
double metrics(const DeviceMesh &mesh, torch::nn::Linear &model, const at::Tensor &batch,
               const at::Tensor &labels) {
  at::Tensor out = model(from_local(batch, mesh, {Shard{0}}));
  at::Tensor y = from_local(labels, mesh, {Shard{0}});
  at::Tensor probs = out.softmax(1);
  at::Tensor logp = at::log_softmax(out, 1);
  at::Tensor pred = probs.argmax(1);
  at::Tensor ranked = std::get<0>(logp.sort(1));
  at::Tensor normed = at::group_norm(out, 2);
  at::Tensor loss = at::cross_entropy_loss(normed, y);
  auto norms = at::_foreach_norm({out, ranked});
  bool same = pred.equal(y);
  return same || pred.any().item<bool>() ? 0.0 : full_tensor(loss).item<double>();
}
