// Training state in checkpoints: an optimizer's state under PyTorch's names
// (Adam resumed across PyTorch and meshguard, other world sizes both ways),
// and async_save (the caller changes its tensors while the save is written).
// test/checkpoint/run.py runs ResumesPyTorchsAdam after pytorch_optim.py
// saved (skipped without MESHGUARD_CHECKPOINT_DIR); the others are
// MULTI_RANK drivers of their own.

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include <torch/csrc/jit/serialization/pickle.h>
#include <torch/torch.h>

#include <meshguard/runtime/Checkpoint.h>

#include "CheckpointTestUtil.h"
#include "RankUtil.h"

using namespace meshguard;
using namespace meshguard::testing;
namespace fs = std::filesystem;

namespace {

torch::nn::Sequential mlp() {
  return torch::nn::Sequential(
      torch::nn::Linear(5, 3), torch::nn::Tanh(), torch::nn::Linear(3, 2));
}

// One Adam step, the gradients taken on the full model (as pytorch_optim.py).
void adam_step(
    torch::nn::Sequential& model,
    torch::optim::Adam& opt,
    const at::Tensor& x,
    const at::Tensor& y) {
  auto full = mlp();
  {
    torch::NoGradGuard no_grad;
    auto ours = model->named_parameters();
    for (auto& p : full->named_parameters()) {
      p.value().copy_(full_tensor(ours[p.key()]));
    }
  }
  (full->forward(x) - y).pow(2).mean().backward();
  auto grads = full->named_parameters();
  for (auto& p : model->named_parameters()) {
    p.value().mutable_grad() = distribute_tensor(
        grads[p.key()].grad(), world_mesh(), *placements_of(p.value()));
  }
  opt.step();
  opt.zero_grad();
}

void expect_params(
    torch::nn::Sequential& model,
    const std::map<std::string, at::Tensor>& expected,
    const std::string& at) {
  for (auto& p : model->named_parameters()) {
    EXPECT_TRUE(at::allclose(
        full_tensor(p.value()), expected.at(at + p.key()), 1e-5, 1e-6))
        << at << p.key();
  }
}

std::string shared_dir(const std::string& what) {
  const char* port = std::getenv("MASTER_PORT");
  return (fs::temp_directory_path() /
          ("meshguard-" + what + "-" + (port ? port : "0")))
      .string();
}

} // namespace

// PyTorch's Adam state after 2 steps on 2 ranks resumes here on another
// world size: step 3 gives PyTorch's parameters; the state saved after it
// (model and optimizer, PyTorch's names) is what pytorch_optim.py resume
// loads for step 4.
TEST(CheckpointState, ResumesPyTorchsAdam) {
  const char* dir_env = std::getenv("MESHGUARD_CHECKPOINT_DIR");
  if (dir_env == nullptr) {
    GTEST_SKIP()
        << "MESHGUARD_CHECKPOINT_DIR is not set (test/checkpoint/run.py sets it)";
  }
  const std::string dir = dir_env;
  const auto expected = read_expected(dir + "/adam.expected.pt");
  auto model = mlp();
  fully_shard(*model, world_mesh());
  torch::optim::Adam opt(model->parameters(), torch::optim::AdamOptions(0.5));
  checkpoint::load(checkpoint::module_state(*model, "model."), dir + "/adam");
  checkpoint::load_optimizer(opt, *model, dir + "/adam");
  const auto& options =
      static_cast<torch::optim::AdamOptions&>(opt.param_groups()[0].options());
  EXPECT_EQ(options.lr(), 0.01);
  EXPECT_EQ(std::get<0>(options.betas()), 0.8);
  expect_params(model, expected, "step2.");
  const auto loaded = checkpoint::optimizer_state(opt, *model).tensors;
  for (auto& p : model->named_parameters()) {
    EXPECT_TRUE(torch::equal(
        full_tensor(loaded.at("optim.state." + p.key() + ".exp_avg")),
        expected.at("exp_avg." + p.key())));
    EXPECT_EQ(
        loaded.at("optim.state." + p.key() + ".step").item<double>(), 2.0);
  }
  adam_step(model, opt, expected.at("x"), expected.at("y"));
  expect_params(model, expected, "step3.");

  auto state = checkpoint::module_state(*model, "model.");
  auto optim = checkpoint::optimizer_state(opt, *model);
  state.insert(optim.tensors.begin(), optim.tensors.end());
  checkpoint::save(state, dir + "/adam_mg", world_mesh(), optim.objects);

  // The group's parameter names must be the checkpoint's; nothing is
  // loaded when they are not.
  auto other = torch::nn::Sequential(torch::nn::Linear(5, 3));
  fully_shard(*other, world_mesh());
  torch::optim::Adam wrong(other->parameters(), torch::optim::AdamOptions(0.1));
  const std::string e = error_of(
      [&] { checkpoint::load_optimizer(wrong, *other, dir + "/adam_mg"); });
  EXPECT_NE(
      e.find("group 0 has parameters [0.weight, 0.bias] here"),
      std::string::npos)
      << e;
  const auto untouched = checkpoint::optimizer_state(wrong, *other).tensors;
  EXPECT_EQ(
      full_tensor(untouched.at("optim.state.0.weight.exp_avg"))
          .abs()
          .sum()
          .item<double>(),
      0.0);
}

// A step of Adam after async_save returned does not reach the checkpoint;
// wait() publishes it; a failing async save throws from wait() on every
// rank and leaves the last checkpoint. Other optimizers are clear errors.
TEST(CheckpointState, AsyncSaveWritesWhatWasStaged) {
  auto mesh = world_mesh();
  static DeviceMesh coordination = init_device_mesh("cpu", {world_size()});
  const std::string dir = shared_dir("async");
  auto w = distribute_tensor(full_of({7, 3}, 1), mesh, {Shard{0}});
  auto r = distribute_tensor(full_of({2, 2}, 2), mesh, {Replicate{}});
  auto pending = checkpoint::async_save(
      {{"w", w}, {"r", r}}, dir, mesh, coordination, {{"step", 5}});
  {
    torch::NoGradGuard no_grad;
    w.mul_(-1);
    r.zero_();
  }
  pending.wait();
  EXPECT_TRUE(pending.done());
  auto w2 = distribute_tensor(at::zeros({7, 3}), mesh, {Replicate{}});
  auto r2 = at::zeros({2, 2});
  checkpoint::load({{"w", w2}, {"r", r2}}, dir);
  EXPECT_TRUE(torch::equal(full_tensor(w2), full_of({7, 3}, 1)));
  EXPECT_TRUE(torch::equal(r2, full_of({2, 2}, 2)));
  EXPECT_EQ(checkpoint::load_object(dir, "step").toInt(), 5);

  auto future = c10::make_intrusive<c10::ivalue::Future>(c10::IntType::get());
  auto failing = checkpoint::async_save(
      {{"w", w}}, dir, mesh, coordination, {{"f", future}});
  const std::string failed = error_of([&] { failing.wait(); });
  EXPECT_NE(failed.find("nothing was published"), std::string::npos) << failed;
  checkpoint::load({{"w", w2}}, dir);
  EXPECT_TRUE(torch::equal(full_tensor(w2), full_of({7, 3}, 1)));

  auto model = mlp();
  torch::optim::SGD sgd(model->parameters(), torch::optim::SGDOptions(0.1));
  const std::string sgd_error =
      error_of([&] { checkpoint::optimizer_state(sgd, *model); });
  EXPECT_NE(
      sgd_error.find("only Adam and AdamW are supported"), std::string::npos)
      << sgd_error;
  // Every rank is done reading before the directory goes.
  full_tensor(distribute_tensor(at::zeros({world_size()}), mesh, {Shard{0}}));
  if (rank() == 0) {
    fs::remove_all(dir);
  }
}
