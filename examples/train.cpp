// Data-parallel training of a small MLP on synthetic data, over a 1-D
// DeviceMesh of Gloo process groups (launch with scripts/meshguard-launch).
// The parameters are Replicate DTensors and each rank's rows of the batch are
// its shard of one Shard(0) DTensor: the loss is the mean over the whole
// batch, each rank's gradients are its rows' share of it (Partial), and the
// mesh-inferred all-reduce sums them (Partial -> Replicate).
// Its input features come from a tensor-parallel layer: a fixed random-feature
// projection whose weight is sharded over the mesh by meshguard::ColwiseParallel
// (Shard(0)), computed shard by shard and gathered (Shard(1) -> Replicate).
//
// It is written the way a user would first write it, and it has the
// mistakes users make with DTensors (see docs/demo.md):
//   1. a hand-written broadcast of a plain tensor (the learning rate);
//   2. a DTensor mixed with a plain tensor (the input scaling);
//   3. the result of to_local() handed to a collective (the logged loss);
//   4. a DTensor handed to a raw c10d process group (the checkpoint broadcast);
//   5. a model only partly distributed (the output head, added later, was
//      never given to distribute_module: its gradients are plain);
//   6. a rank-0-only checkpoint that gathers a sharded tensor inside
//      `if (rank == 0)`: the other ranks never join the all-gather (a hang);
//   7. the final error, summed over row shards (a Partial sum), read with
//      to_local(): each rank prints its own part of the sum, a wrong number
//      and no error.
// `make demo` runs it, runs meshguard-tidy on it, applies the fix-its to a
// copy, and trains with the fixed copy.
//
// Options: --save-at STEP DIR saves the training state after STEP into DIR
// (meshguard::checkpoint, PyTorch's DCP layout); --resume DIR continues from
// such a state, on any number of ranks.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include <meshguard/meshguard.h>
#include <torch/torch.h>

namespace {

constexpr int64_t kGlobalBatch = 64;
constexpr int64_t kInputs = 6;   // raw inputs
constexpr int64_t kFeatures = 8; // projected features, the MLP's input
constexpr int64_t kHidden = 16;
constexpr int kSteps = 30;

struct MLPImpl : torch::nn::Module {
  MLPImpl()
      : fc1(register_module("fc1", torch::nn::Linear(kFeatures, kHidden))),
        fc2(register_module("fc2", torch::nn::Linear(kHidden, 1))) {}

  torch::Tensor forward(const torch::Tensor &x) {
    return fc2->forward(torch::tanh(fc1->forward(x)));
  }

  torch::nn::Linear fc1;
  torch::nn::Linear fc2;
};
TORCH_MODULE(MLP);

struct Options {
  int save_at = 0; // no save
  std::string save_dir;
  std::string resume_dir;
};

Options parse_options(int argc, char **argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--save-at" && i + 2 < argc) {
      options.save_at = std::atoi(argv[i + 1]);
      options.save_dir = argv[i + 2];
      i += 2;
    } else if (arg == "--resume" && i + 1 < argc) {
      options.resume_dir = argv[++i];
    } else {
      std::fprintf(stderr, "usage: %s [--save-at STEP DIR] [--resume DIR]\n", argv[0]);
      std::exit(2);
    }
  }
  return options;
}

int64_t world_size_from_env() {
  const char *world = std::getenv("WORLD_SIZE");
  return world ? std::atoll(world) : 1;
}

// The same global data set on every rank.
std::pair<torch::Tensor, torch::Tensor> make_data() {
  torch::manual_seed(42);
  auto x = torch::randn({kGlobalBatch, kInputs});
  auto y = torch::sin(x.sum(1, /*keepdim=*/true)) + 0.1 * torch::randn({kGlobalBatch, 1});
  return {x, y};
}

// Tensor parallelism: tanh(x W^T), a random-feature projection of the inputs
// to kFeatures features, W column-parallel (ColwiseParallel on a Linear without
// bias): each rank holds a chunk of W's rows (Shard(0)) and computes a Shard(1)
// chunk of the output, which the style all-gathers (output_layouts Replicate).
// The input is the whole data set, the same on every rank. W is fixed (not
// trained): no gradient, the features are computed once, on 1 rank all of W.
torch::Tensor project_features(const meshguard::DeviceMesh &mesh, const torch::Tensor &x) {
  torch::nn::Linear proj(torch::nn::LinearOptions(kInputs, kFeatures).bias(false));
  torch::NoGradGuard no_grad;
  torch::manual_seed(7);
  proj->weight.copy_(torch::randn({kFeatures, kInputs}) / std::sqrt(static_cast<double>(kInputs)));
  meshguard::ColwiseParallel colwise;
  colwise.output_layouts = meshguard::Replicate{};
  meshguard::parallelize_module(*proj, mesh, colwise);
  // The style returns the local tensor: every rank has all kFeatures columns.
  return torch::tanh(meshguard::parallel_forward(proj, x));
}

// Each rank trains on its slice of the global batch.
std::pair<torch::Tensor, torch::Tensor> make_shard(const torch::Tensor &x, const torch::Tensor &y,
                                                   int64_t rank, int64_t world) {
  int64_t rows = kGlobalBatch / world;
  return {x.narrow(0, rank * rows, rows), y.narrow(0, rank * rows, rows)};
}

// Reduces the gradients over the data-parallel ranks. The batch is Shard(0)
// and the parameters Replicate, so each rank's gradient is its rows' share of
// the whole batch's: a Partial(sum) DTensor. The mesh-inferred all-reduce sums
// the shares into the gradient of the global loss, and the gradients become
// Replicate, like the parameters they update.
void sync_gradients(torch::nn::Module &model) {
  // (Collectives need dense buffers: some gradients are transposed views.)
  auto params = model.parameters();
  std::vector<torch::Tensor> grads;
  for (const auto &p : params)
    grads.push_back(p.grad().contiguous());
  meshguard::dist::all_reduce_(grads, meshguard::ReduceOp::SUM);
  for (size_t i = 0; i < params.size(); ++i)
    params[i].mutable_grad() = grads[i];
}

void sgd_step(torch::nn::Module &model, double lr) {
  torch::NoGradGuard no_grad;
  for (auto &p : model.parameters())
    p.sub_(p.grad() * lr);
}

// A tensor's placements as the runtime sees them ("plain" for a plain tensor).
std::string placements(const torch::Tensor &t) {
  auto p = meshguard::placements_of(t);
  return p ? meshguard::to_string(*p) : "plain";
}

// Prints the loss over the whole batch, every step (a resumed run is compared
// with an uninterrupted one step by step): the mean of the ranks' means, the
// shards being equal.
void log_loss(const meshguard::DeviceMesh &mesh, const torch::Tensor &loss, int step) {
  auto logged = meshguard::to_local(loss).detach().clone();
  meshguard::dist::all_reduce_({logged}, meshguard::ReduceOp::AVG);
  if (mesh.get_rank() == 0)
    std::printf("step %d loss %.9f\n", step, logged.item<double>());
}

} // namespace

int main(int argc, char **argv) {
  const Options options = parse_options(argc, argv);
  auto mesh = meshguard::init_device_mesh("cpu", {world_size_from_env()});
  const int64_t rank = mesh.get_rank();
  const int64_t world = mesh.size(0);

  torch::manual_seed(0);
  MLP model;
  // Replicate every parameter over the mesh: they become DTensors.
  meshguard::distribute_module(*model, mesh);
  meshguard::dist::broadcast_(model->parameters(), /*src=*/0);
  // A learned output calibration, added to the model later.
  torch::nn::Linear head(1, 1);

  // Rank 0 picks the learning rate and shares it.
  auto lr = torch::full({1}, 0.2);
  meshguard::dist::broadcast_({lr}, /*src=*/0);

  // The training state: the parameters under PyTorch's names (the tensors
  // themselves, so load fills them in place, on any mesh) and the learning
  // rate. Plain SGD on fixed data needs nothing else but the step.
  auto state = meshguard::checkpoint::module_state(*model, "model.");
  auto head_state = meshguard::checkpoint::module_state(*head, "head.");
  state.insert(head_state.begin(), head_state.end());
  state.emplace("lr", lr);
  int first_step = 1;
  if (!options.resume_dir.empty()) {
    meshguard::checkpoint::load(state, options.resume_dir);
    auto saved_step = meshguard::checkpoint::load_object(options.resume_dir, "step").toInt();
    auto saved_world = meshguard::checkpoint::load_object(options.resume_dir, "world_size").toInt();
    first_step = static_cast<int>(saved_step) + 1;
    if (rank == 0)
      std::printf("resumed at step %d from %s: saved on %lld ranks, now on %lld\n", first_step,
                  options.resume_dir.c_str(), static_cast<long long>(saved_world),
                  static_cast<long long>(world));
  }

  auto [inputs, targets] = make_data();
  auto features = project_features(mesh, inputs);
  auto [x_local, y_local] = make_shard(features, targets, rank, world);
  // Each rank's rows are its shard of the batch: Shard(0) DTensors.
  auto x = meshguard::from_local(x_local, mesh, {meshguard::Shard{0}});
  auto y = meshguard::from_local(y_local, mesh, {meshguard::Shard{0}});
  // Per-feature input scaling.
  auto scale = torch::linspace(0.5, 1.5, kFeatures);
  x = x * scale;
  auto start = std::chrono::steady_clock::now();
  for (int step = first_step; step <= kSteps; ++step) {
    for (auto &p : model->parameters())
      p.mutable_grad() = torch::Tensor();
    for (auto &p : head->parameters())
      p.mutable_grad() = torch::Tensor();

    auto pred = head->forward(model->forward(x));
    // The mean over the whole batch (Partial(avg) over the shards).
    auto loss = (pred - y).pow(2).mean();
    loss.backward();

    // The first step shows the placements: the batch is sharded, so the
    // gradients come out Partial until sync_gradients reduces them.
    std::string grad_placements;
    if (step == first_step)
      grad_placements = placements(model->fc1->weight.grad());
    sync_gradients(*model);
    sync_gradients(*head);
    if (step == first_step && rank == 0)
      std::printf("placements at step %d: batch %s, loss %s, fc1.weight's gradient %s, after "
                  "sync_gradients %s\n",
                  step, placements(x).c_str(), placements(loss).c_str(), grad_placements.c_str(),
                  placements(model->fc1->weight.grad()).c_str());
    sgd_step(*model, lr.item<double>());
    sgd_step(*head, lr.item<double>());
    log_loss(mesh, loss, step);
    // Every rank saves: each writes the blocks it holds.
    if (step == options.save_at) {
      meshguard::checkpoint::save(state, options.save_dir, mesh,
                                  {{"step", int64_t{step}}, {"world_size", world}});
      if (rank == 0)
        std::printf("saved step %d to %s\n", step, options.save_dir.c_str());
    }
  }
  const int steps_run = kSteps - first_step + 1;
  double ms = std::chrono::duration<double, std::milli>(
                  std::chrono::steady_clock::now() - start).count() / std::max(steps_run, 1);

  // The final mean squared error over the whole batch: each rank's squared
  // residuals are its rows of one Shard(0) DTensor, whose sum is Partial.
  {
    torch::NoGradGuard no_grad;
    auto squares = (head->forward(model->forward(x)) - y).pow(2);
    auto sse = squares.sum();
    auto mse = meshguard::to_local(sse) / static_cast<double>(kGlobalBatch);
    if (rank == 0)
      std::printf("final mse %.9f\n", mse.item<double>());
  }

  // Before the checkpoint, every rank takes rank 0's first-layer weight.
  at::Tensor w1 = meshguard::redistribute(model->fc1->weight, {meshguard::Replicate{}});
  std::vector<at::Tensor> checkpoint{w1};
  mesh.get_group(0)->broadcast(checkpoint)->wait();

  // Rank 0 writes the first layer, kept sharded by rows, as one tensor.
  auto w1_rows = meshguard::redistribute(model->fc1->weight, {meshguard::Shard{0}});
  if (rank == 0) {
    auto full_w1 = meshguard::full_tensor(w1_rows);
    std::printf("checkpoint: fc1.weight %lldx%lld\n", static_cast<long long>(full_w1.size(0)),
                static_cast<long long>(full_w1.size(1)));
  }

  if (rank == 0)
    std::printf("done: %d steps, ms/step=%.3f\n", steps_run, ms);
  return 0;
}
