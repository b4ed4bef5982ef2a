// Trains a small data-parallel regression with the runtime of the installed
// wheel: replicated parameters, the batch sharded over the ranks, gradients
// summed across them. Every rank prints its view of the loss at every step:
//   rank R step S loss L
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <meshguard/meshguard.h>
#include <torch/torch.h>

int main() {
  const char* world_env = std::getenv("WORLD_SIZE");
  const int64_t world = world_env ? std::atoll(world_env) : 1;
  auto mesh = meshguard::init_device_mesh("cpu", {world});
  const int64_t rank = mesh.get_rank();

  torch::manual_seed(0);
  torch::nn::Linear model(4, 1);
  meshguard::distribute_module(*model, mesh);

  // The same data on every rank; each takes its rows.
  torch::manual_seed(1);
  const int64_t batch = 32;
  auto x_all = torch::randn({batch, 4});
  auto y_all = x_all.matmul(torch::tensor({1.0f, -2.0f, 0.5f, 3.0f}).unsqueeze(1));
  const int64_t rows = batch / world;
  auto x = meshguard::from_local(x_all.narrow(0, rank * rows, rows), mesh, {meshguard::Shard{0}});
  auto y = meshguard::from_local(y_all.narrow(0, rank * rows, rows), mesh, {meshguard::Shard{0}});

  for (int step = 1; step <= 5; ++step) {
    for (auto& p : model->parameters())
      p.mutable_grad() = torch::Tensor();
    auto loss = (model->forward(x) - y).pow(2).mean();
    loss.backward();
    auto params = model->parameters();
    std::vector<torch::Tensor> grads;
    for (const auto& p : params)
      grads.push_back(p.grad().contiguous());
    meshguard::dist::all_reduce_(grads, meshguard::ReduceOp::SUM);
    {
      torch::NoGradGuard no_grad;
      for (size_t i = 0; i < params.size(); ++i)
        params[i].sub_(grads[i] * 0.1);
    }
    const double value = meshguard::full_tensor(loss).item<double>();
    std::printf("rank %lld step %d loss %.9f\n", static_cast<long long>(rank), step, value);
  }
  return 0;
}
