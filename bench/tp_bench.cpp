// meshguard_tp_bench: one training step of a tensor-parallel MLP written
// with parallelize_module (ColwiseParallel + RowwiseParallel, sharding
// propagation) against the same model written by hand with to_local /
// from_local / redistribute, interleaved run by run in one process per rank.
// Run on N ranks: scripts/meshguard-launch --nproc 2 -- meshguard_tp_bench
// [--quick]. Prints (rank 0) the median ms per step of each and their ratio.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <vector>

#include <torch/torch.h>

#include <meshguard/meshguard.h>

#include "BenchStats.h"

using namespace meshguard;
using bench::median;
using Clock = std::chrono::steady_clock;

namespace {

struct MlpImpl : torch::nn::Module {
  MlpImpl(int64_t in, int64_t hidden, int64_t out)
      : fc1(register_module("fc1", torch::nn::Linear(in, hidden))),
        fc2(register_module("fc2", torch::nn::Linear(hidden, out))) {}
  at::Tensor forward(const at::Tensor& x) {
    return parallel_forward(fc2, at::relu(parallel_forward(fc1, x)));
  }
  torch::nn::Linear fc1, fc2;
};
TORCH_MODULE(Mlp);

} // namespace

int main(int argc, char** argv) {
  const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  const int reps = quick ? 5 : 15, steps = quick ? 10 : 30;
  at::set_num_threads(1);
  auto mesh = init_device_mesh("cpu", {std::atoll(std::getenv("WORLD_SIZE"))});
  const int64_t in = 256, hidden = 1024, out = 256, batch = 64;
  torch::manual_seed(1);
  at::Tensor x = torch::randn({batch, in}), y = torch::randn({batch, out});

  // With the styles.
  Mlp styled(in, hidden, out);
  parallelize_module(
      *styled, mesh, {{"fc1", ColwiseParallel{}}, {"fc2", RowwiseParallel{}}});
  torch::optim::SGD styled_opt(
      styled->parameters(), torch::optim::SGDOptions(0.01).momentum(0.9));
  auto styled_step = [&] {
    styled_opt.zero_grad();
    torch::mse_loss(styled->forward(x), y).backward();
    styled_opt.step();
  };

  // By hand: the same placements, locals taken and wrapped explicitly.
  Mlp manual(in, hidden, out);
  distribute_module(
      *manual,
      mesh,
      [](const std::string& name, const at::Tensor&, const DeviceMesh&) {
        if (name == "fc2.bias") {
          return Placements{Replicate{}};
        }
        return Placements{
            name == "fc2.weight" ? Placement(Shard{1}) : Placement(Shard{0})};
      });
  torch::optim::SGD manual_opt(
      manual->parameters(), torch::optim::SGDOptions(0.01).momentum(0.9));
  auto manual_step = [&] {
    manual_opt.zero_grad();
    at::Tensor h = at::relu(at::linear(
        x, to_local(manual->fc1->weight), to_local(manual->fc1->bias)));
    at::Tensor partial = from_local(
        at::linear(h, to_local(manual->fc2->weight)), mesh, {Partial{}});
    at::Tensor o =
        to_local(redistribute(partial, {Replicate{}}) + manual->fc2->bias);
    torch::mse_loss(o, y).backward();
    manual_opt.step();
  };

  for (int i = 0; i < 3; ++i) {
    styled_step();
    manual_step();
  }
  std::vector<double> s, m;
  for (int rep = 0; rep < reps; ++rep) {
    auto t0 = Clock::now();
    for (int i = 0; i < steps; ++i) {
      styled_step();
    }
    s.push_back(
        std::chrono::duration<double, std::milli>(Clock::now() - t0).count() /
        steps);
    t0 = Clock::now();
    for (int i = 0; i < steps; ++i) {
      manual_step();
    }
    m.push_back(
        std::chrono::duration<double, std::milli>(Clock::now() - t0).count() /
        steps);
  }
  if (mesh.get_rank() == 0) {
    std::printf(
        "## TP MLP step (%lld ranks, [%lld, %lld] -> %lld -> %lld, 1 thread), median of %d runs of %d steps\n\n",
        static_cast<long long>(mesh.size()),
        static_cast<long long>(batch),
        static_cast<long long>(in),
        static_cast<long long>(hidden),
        static_cast<long long>(out),
        reps,
        steps);
    std::printf(
        "| parallelize_module (ms/step) | hand-written to_local/from_local (ms/step) | ratio |\n|---|---|---|\n");
    std::printf(
        "| %.3f | %.3f | %.3f |\n",
        median(s),
        median(m),
        median(s) / median(m));
  }
  return 0;
}
