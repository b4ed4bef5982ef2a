// A program as a user first writes it, for the parameters fix-it round trip
// (test/fixits/parameters-round-trip.test): the ranks sum a model's
// parameters, then take rank 0's copy of a head's parameters. Its mistakes,
// one per fix-it kind that works on a module's parameters():
//   1. the parameters of a module never passed to distribute_module, summed
//      with the mesh-inferred collective: the one fix is to distribute the
//      module (no guarded collective as well);
//   2. DDP's _sync_module_states after distribute_module: a vector copied
//      from parameters() broadcast on the raw ProcessGroup: the fix is the
//      mesh-aware broadcast (the parameters stay DTensors).
// Unfixed, every rank dies on 1 with MeshNotFoundError. Fixed by
// `meshguard-tidy -fix`, every rank of 2 prints
//   summed 2.0 head 3.0
// (every parameter doubled by the sum; rank 0's head, weight 1 1, bias 1).

#include <cstdio>
#include <cstdlib>
#include <vector>

#include <meshguard/meshguard.h>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/torch.h>

namespace {

int64_t world_size_from_env() {
  const char *world = std::getenv("WORLD_SIZE");
  return world ? std::atoll(world) : 1;
}

// This rank's values of the tensors, summed (local tensors of DTensors).
double local_sum(const std::vector<at::Tensor> &tensors) {
  double sum = 0;
  for (const at::Tensor &t : tensors)
    sum += (meshguard::is_dtensor(t) ? meshguard::to_local(t) : t).sum().item<double>();
  return sum;
}

} // namespace

int main() {
  torch::NoGradGuard no_grad;
  auto mesh = meshguard::init_device_mesh("cpu", {world_size_from_env()});

  // Every rank starts from the same model; the sum doubles it on 2 ranks.
  torch::manual_seed(0);
  torch::nn::Linear model(2, 1);
  std::vector<at::Tensor> ps = model->parameters();
  const double before = local_sum(ps);
  meshguard::dist::all_reduce_(ps);
  const double summed = local_sum(ps) / before;

  // Each rank's head differs until rank 0's is broadcast.
  torch::nn::Linear head(2, 1);
  head->weight.fill_(1.0 + mesh.get_rank());
  head->bias.fill_(1.0 + mesh.get_rank());
  meshguard::distribute_module(*head, mesh);
  c10d::ProcessGroup &pg = *mesh.get_group(0);
  std::vector<at::Tensor> params = head->parameters();
  pg.broadcast(params);

  std::printf("summed %.1f head %.1f\n", summed, local_sum(params));
  return 0;
}
