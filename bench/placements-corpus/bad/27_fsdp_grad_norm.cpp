#include <meshguard/meshguard.h>
#include <meshguard/runtime/Parallelize.h>
#include <ostream>

using namespace meshguard;
std::ostream &operator<<(std::ostream &OS, const at::Tensor &T);

// A hand-written gradient norm for logging over an FSDP model: each
// rank sums the squares of its own rows of every gradient.
double grad_norm(const DeviceMesh &mesh, torch::nn::Linear &model) {
  fully_shard(*model, mesh);
  at::Tensor total = torch::zeros({});
  for (auto &p : model->parameters()) {
    at::Tensor g = to_local(p.grad());
    total += g.pow(2).sum();
  }
  return total.sqrt().item<double>(); // EXPECT: dtensor-partial-local-use
}
