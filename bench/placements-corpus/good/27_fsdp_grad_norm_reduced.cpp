#include <meshguard/meshguard.h>
#include <meshguard/runtime/Parallelize.h>
#include <ostream>

using namespace meshguard;
std::ostream &operator<<(std::ostream &OS, const at::Tensor &T);

// The squares summed on each rank, then all-reduced, before the sqrt.
double grad_norm(const DeviceMesh &mesh, torch::nn::Linear &model) {
  fully_shard(*model, mesh);
  at::Tensor total = torch::zeros({});
  for (auto &p : model->parameters()) {
    at::Tensor g = to_local(p.grad());
    total += g.pow(2).sum();
  }
  guarded::all_reduce_({total}, mesh);
  return total.sqrt().item<double>();
}
