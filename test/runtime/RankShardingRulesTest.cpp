// Differential tests of the sharding-rule table: each op runs on DTensors
// on real Gloo ranks and on the full tensors in this process; values,
// output placements and gradients must agree (run under meshguard-launch).
// MESHGUARD_SWEEP=N adds N random shapes per case (uneven and empty shards).

#include <cstdlib>
#include <functional>

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <gmock/gmock.h>
#include <torch/torch.h>

#include "DifferentialCase.h"

using namespace meshguard;
using namespace meshguard::testing;

using namespace meshguard::testing::differential;

TEST(ShardingRules, Pointwise) {
  auto mesh = world_mesh();
  for (int64_t n : row_counts()) {
    auto a = rnd({n, 3}, 1), b = rnd({n, 3}, 2), bias = rnd({3}, 3);
    run_case(
        {"S0 + S0",
         [](auto& x) { return x[0] + x[1]; },
         {a, b},
         {{S0}, {S0}},
         Placements{S0}},
        mesh);
    run_case(
        {"S0 + R bias (broadcast)",
         [](auto& x) { return x[0] + x[1]; },
         {a, bias},
         {{S0}, {R}},
         Placements{S0}},
        mesh);
    run_case(
        {"S1 * R",
         [](auto& x) { return x[0] * x[1]; },
         {a, b},
         {{S1}, {R}},
         Placements{S1}},
        mesh);
    run_case(
        {"S0 * S1 (one is redistributed)",
         [](auto& x) { return x[0] * x[1]; },
         {a, b},
         {{S0}, {S1}},
         std::nullopt},
        mesh);
    run_case(
        {"relu(S0) - 0.5",
         [](auto& x) { return at::relu(x[0]) - 0.5; },
         {a},
         {{S0}},
         Placements{S0}},
        mesh);
    run_case(
        {"tanh(S1) * 2 + S1",
         [](auto& x) { return at::tanh(x[0]) * 2 + x[1]; },
         {a, b},
         {{S1}, {S1}},
         Placements{S1}},
        mesh);
  }
}

// Partial operands: linear ops keep them, others reduce first.
TEST(ShardingRules, PartialLinearity) {
  auto mesh = world_mesh();
  const auto w = world_size();
  at::Tensor v = rnd({4, 3}, 5), u = rnd({4, 3}, 6);
  at::Tensor p = from_local(v, mesh, {Partial{}}); // global value v * w
  at::Tensor q = from_local(u, mesh, {Partial{}});
  at::Tensor r = distribute_tensor(u, mesh, {R});
  auto expect =
      [&](const at::Tensor& t, const Placements& pl, const at::Tensor& value) {
        ASSERT_TRUE(is_dtensor(t));
        EXPECT_EQ(to_string(*placements_of(t)), to_string(pl));
        EXPECT_TRUE(at::allclose(full_tensor(t), value, 1e-4, 1e-5));
      };
  expect(p + q, {Partial{}}, (v + u) * w);
  expect(p - q, {Partial{}}, (v - u) * w);
  expect(p * 3, {Partial{}}, v * 3 * w);
  expect(p / 2, {Partial{}}, v / 2 * w);
  expect(p * r, {Partial{}}, v * w * u);
  expect(r * p, {Partial{}}, v * w * u);
  expect(-p, {Partial{}}, -v * w);
  // Not linear: the Partial is reduced first; a reduce-scatter to Shard(0)
  // is cheaper than an all-reduce, so the result is Shard(0).
  expect(p + 1, {S0}, v * w + 1);
  expect(at::relu(p), {S0}, at::relu(v * w));
  // Linear in one factor: the other is all-reduced (as costly as
  // reduce-scattering both, and fewer operands move).
  expect(p * p, {Partial{}}, v * w * v * w);
  expect(r / p, {S0}, u / (v * w));
}

TEST(ShardingRules, Matrix) {
  auto mesh = world_mesh();
  const Placements P{Partial{}};
  for (int64_t n : row_counts()) {
    auto x = rnd({n, 4}, 7), w = rnd({4, 5}, 8), w_rows = rnd({5, 4}, 9),
         bias = rnd({5}, 10);
    run_case(
        {"mm S0 x R",
         [](auto& t) { return at::mm(t[0], t[1]); },
         {x, w},
         {{S0}, {R}},
         Placements{S0}},
        mesh);
    run_case(
        {"mm R x S1",
         [](auto& t) { return at::mm(t[0], t[1]); },
         {x, w},
         {{R}, {S1}},
         Placements{S1}},
        mesh);
    run_case(
        {"mm S1 x S0",
         [](auto& t) { return at::mm(t[0], t[1]); },
         {x, w},
         {{S1}, {S0}},
         P},
        mesh);
    run_case(
        {"mm S0 x S0 (redistributed)",
         [](auto& t) { return at::mm(t[0], t[1]); },
         {x, w},
         {{S0}, {S0}},
         std::nullopt},
        mesh);
    run_case(
        {"addmm(S0 bias, R, S1)",
         [](auto& t) { return at::addmm(t[0], t[1], t[2]); },
         {bias, x, w},
         {{S0}, {R}, {S1}},
         Placements{S1}},
        mesh);
    // Column-parallel linear: weight and bias Shard(0) -> output Shard(1).
    run_case(
        {"linear column parallel",
         [](auto& t) { return at::linear(t[0], t[1], t[2]); },
         {x, w_rows, bias},
         {{R}, {S0}, {S0}},
         Placements{S1}},
        mesh);
    // Row-parallel linear: input Shard(1), weight Shard(1) -> Partial.
    run_case(
        {"linear row parallel",
         [](auto& t) { return at::linear(t[0], t[1]); },
         {x, w_rows},
         {{S1}, {S1}},
         P},
        mesh);
    auto xb = rnd({n, 3, 4}, 11), wb = rnd({n, 4, 2}, 12);
    run_case(
        {"bmm S0 x S0",
         [](auto& t) { return at::bmm(t[0], t[1]); },
         {xb, wb},
         {{S0}, {S0}},
         Placements{S0}},
        mesh);
    run_case(
        {"bmm S2 x S1",
         [](auto& t) { return at::bmm(t[0], t[1]); },
         {xb, wb},
         {{S2}, {S1}},
         P},
        mesh);
    run_case(
        {"matmul 3-D x 2-D",
         [](auto& t) { return at::matmul(t[0], t[1]); },
         {xb, w},
         {{S0}, {R}},
         std::nullopt},
        mesh);
    auto bias3 = rnd({3, 2}, 18);
    run_case(
        {"baddbmm(R, S0, S0)",
         [](auto& t) { return at::baddbmm(t[0], t[1], t[2], 0.5, 2.0); },
         {bias3, xb, wb},
         {{R}, {S0}, {S0}},
         Placements{S0}},
        mesh);
  }
}

TEST(ShardingRules, Reductions) {
  auto mesh = world_mesh();
  const int64_t w = world_size();
  for (int64_t n : row_counts()) {
    auto x = rnd({n, 3}, 13);
    run_case(
        {"sum() of S0",
         [](auto& t) { return t[0].sum(); },
         {x},
         {{S0}},
         Placements{Partial{}}},
        mesh);
    run_case(
        {"sum(1) of S0",
         [](auto& t) { return t[0].sum(1); },
         {x},
         {{S0}},
         Placements{S0}},
        mesh);
    run_case(
        {"sum(0) of S0",
         [](auto& t) { return t[0].sum(0); },
         {x},
         {{S0}},
         Placements{Partial{}}},
        mesh);
    run_case(
        {"sum(0, keepdim) of S1",
         [](auto& t) { return t[0].sum(0, true); },
         {x},
         {{S1}},
         Placements{S1}},
        mesh);
    // Uneven: a mean of shards' means is wrong, so the input moves (to
    // Replicate, or cheaper, to Shard(1)); the values are checked either way.
    const std::optional<Placements> mean_out = n % w == 0
        ? std::optional<Placements>(Placements{Partial{ReduceOp::AVG}})
        : std::nullopt;
    if (n > 0) {
      run_case(
          {"mean() of S0",
           [](auto& t) { return t[0].mean(); },
           {x},
           {{S0}},
           mean_out},
          mesh);
      run_case(
          {"mean(0) of S0",
           [](auto& t) { return t[0].mean(0); },
           {x},
           {{S0}},
           mean_out},
          mesh);
    }
    run_case(
        {"mean(1) of S0",
         [](auto& t) { return t[0].mean(1); },
         {x},
         {{S0}},
         Placements{S0}},
        mesh);
    if (n > 0) { // amax of an empty dim is an error in torch too
      run_case(
          {"amax(0) of S0",
           [](auto& t) { return at::amax(t[0], {0}); },
           {x},
           {{S0}},
           n % w == 0
               ? std::optional<Placements>(Placements{Partial{ReduceOp::MAX}})
               : std::nullopt,
           /*backward=*/false},
          mesh);
    }
    run_case(
        {"amin(1) of S0",
         [](auto& t) { return at::amin(t[0], {1}); },
         {x},
         {{S0}},
         Placements{S0},
         false},
        mesh);
    run_case(
        {"softmax(1) of S0",
         [](auto& t) { return at::softmax(t[0], 1); },
         {x},
         {{S0}},
         Placements{S0}},
        mesh);
    run_case(
        {"log_softmax(-1) of S0",
         [](auto& t) { return at::log_softmax(t[0], -1); },
         {x},
         {{S0}},
         Placements{S0}},
        mesh);
    run_case(
        {"softmax(0) of S0 (gathered or moved)",
         [](auto& t) { return at::softmax(t[0], 0); },
         {x},
         {{S0}},
         std::nullopt},
        mesh);
  }
}

TEST(ShardingRules, Views) {
  auto mesh = world_mesh();
  const int64_t w = world_size();
  for (int64_t n : row_counts()) {
    auto x = rnd({n, 6}, 14);
    run_case(
        {"t() of S0",
         [](auto& t) { return t[0].t(); },
         {x},
         {{S0}},
         Placements{S1}},
        mesh);
    run_case(
        {"transpose(0,1) of S1",
         [](auto& t) { return t[0].transpose(0, 1); },
         {x},
         {{S1}},
         Placements{S0}},
        mesh);
    run_case(
        {"unsqueeze(0) of S0",
         [](auto& t) { return t[0].unsqueeze(0); },
         {x},
         {{S0}},
         Placements{S1}},
        mesh);
    run_case(
        {"unsqueeze(1).squeeze(1) of S0",
         [](auto& t) { return t[0].unsqueeze(1).squeeze(1); },
         {x},
         {{S0}},
         Placements{S0}},
        mesh);
    // An empty tensor's view is gathered (its dim groups are undefined).
    run_case(
        {"view(n, 2, 3) of S0",
         [n](auto& t) { return t[0].view({n, 2, 3}); },
         {x},
         {{S0}},
         n > 0 ? std::optional<Placements>(Placements{S0}) : std::nullopt},
        mesh);
    // [1, 6] -> [6]: the size-1 dim carries nothing, the shard moves to
    // dim 1 (all-to-all, cheaper than a gather) and stays.
    run_case(
        {"reshape(-1) of S0",
         [](auto& t) { return t[0].reshape({-1}); },
         {x},
         {{S0}},
         (n % w == 0 && n > 0) || n == 1 ? Placements{S0} : Placements{R}},
        mesh);
    run_case(
        {"permute(1, 0) of S0",
         [](auto& t) { return t[0].permute({1, 0}); },
         {x},
         {{S0}},
         Placements{S1}},
        mesh);
    run_case(
        {"unsqueeze(1).expand(n, 4, 6) of S0",
         [n](auto& t) { return t[0].unsqueeze(1).expand({n, 4, 6}); },
         {x},
         {{S0}},
         Placements{S0}},
        mesh);
    // A shard on an inner dim of a merged group cannot stay: moved first.
    run_case(
        {"view(-1) of S1 (redistributed)",
         [](auto& t) { return t[0].view({-1}); },
         {x},
         {{S1}},
         std::nullopt},
        mesh);
  }
}

// A 2x2 mesh: per mesh dim strategies, nested shards of one dim.
TEST(ShardingRules, TwoByTwoMesh) {
  ASSERT_EQ(world_size(), 4);
  auto mesh = init_device_mesh("cpu", {2, 2});
  for (int64_t n : {8, 5, 1}) {
    auto a = rnd({n, 4}, 15), b = rnd({n, 4}, 16), w = rnd({4, 6}, 17);
    run_case(
        {"[S0,S1] + [S0,R]",
         [](auto& t) { return t[0] + t[1]; },
         {a, b},
         {{S0, S1}, {S0, R}},
         Placements{S0, S1}},
        mesh);
    run_case(
        {"mm [S0,R] x [R,S1]",
         [](auto& t) { return at::mm(t[0], t[1]); },
         {a, w},
         {{S0, R}, {R, S1}},
         Placements{S0, S1}},
        mesh);
    run_case(
        {"mm [S0,S0] x R",
         [](auto& t) { return at::mm(t[0], t[1]); },
         {a, w},
         {{S0, S0}, {R, R}},
         Placements{S0, S0}},
        mesh);
    run_case(
        {"sum() of [S0,S1]",
         [](auto& t) { return t[0].sum(); },
         {a},
         {{S0, S1}},
         Placements{Partial{}, Partial{}}},
        mesh);
    run_case(
        {"t() of [S0,S1]",
         [](auto& t) { return t[0].t(); },
         {a},
         {{S0, S1}},
         Placements{S1, S0}},
        mesh);
  }
}

// Training a column-then-row-parallel MLP on DTensors end to end: no
// to_local/from_local, the rules propagate; losses equal one process's.
TEST(ShardingRules, TensorParallelMlpWithoutManualLocals) {
  auto mesh = world_mesh();
  torch::manual_seed(11);
  at::Tensor x = torch::randn({16, 4});
  at::Tensor y = torch::randn({16, 2});
  std::vector<at::Tensor> init = {
      torch::randn({8, 4}) * 0.5,
      torch::randn({8}) * 0.1,
      torch::randn({2, 8}) * 0.5,
      torch::randn({2}) * 0.1};
  auto forward = [](const std::vector<at::Tensor>& p, const at::Tensor& in) {
    return at::linear(at::relu(at::linear(in, p[0], p[1])), p[2], p[3]);
  };
  std::vector<at::Tensor> ref;
  ref.reserve(init.size());
  for (const auto& t : init) {
    ref.push_back(t.clone().requires_grad_());
  }
  torch::optim::SGD ref_opt(ref, torch::optim::SGDOptions(0.1).momentum(0.5));
  std::vector<float> ref_losses;
  for (int step = 0; step < 3; ++step) {
    ref_opt.zero_grad();
    auto loss = (forward(ref, x) - y).pow(2).mean();
    loss.backward();
    ref_opt.step();
    ref_losses.push_back(loss.item<float>());
  }
  std::vector<at::Tensor> params = {
      distribute_tensor(init[0], mesh, {S0}).requires_grad_(),
      distribute_tensor(init[1], mesh, {S0}).requires_grad_(),
      distribute_tensor(init[2], mesh, {S1}).requires_grad_(),
      distribute_tensor(init[3], mesh, {R}).requires_grad_()};
  torch::optim::SGD opt(params, torch::optim::SGDOptions(0.1).momentum(0.5));
  at::Tensor xd = distribute_tensor(x, mesh, {R});
  at::Tensor yd = distribute_tensor(y, mesh, {R});
  for (int step = 0; step < 3; ++step) {
    opt.zero_grad();
    at::Tensor loss = (forward(params, xd) - yd).pow(2).mean();
    ASSERT_TRUE(is_dtensor(loss));
    loss.backward();
    opt.step();
    EXPECT_NEAR(full_tensor(loss).item<float>(), ref_losses[step], 1e-5)
        << "step " << step;
  }
  for (size_t i = 0; i < params.size(); ++i) {
    EXPECT_EQ(
        to_string(*placements_of(params[i])),
        to_string(*placements_of(distribute_tensor(
            init[i],
            mesh,
            i == 3 ? Placements{R} : Placements{i == 2 ? S1 : S0}))));
    EXPECT_TRUE(
        at::allclose(full_tensor(params[i]), ref[i].detach(), 1e-5, 1e-6))
        << "param " << i;
  }
}

// Ops outside the table stay refused on sharded operands; every table key
// names an operator the dispatcher knows.
TEST(ShardingRules, OpsOutsideTheTableAreRefused) {
  auto mesh = world_mesh();
  at::Tensor a = distribute_tensor(rnd({4, 3}, 1), mesh, {S0});
  MG_EXPECT_THROW_WITH(
      at::trace(a), c10::Error, "aten::trace.default: no sharding rule");
  MG_EXPECT_THROW_WITH(
      at::histc(a), c10::Error, "not in the sharding-rule table");
  MG_EXPECT_THROW_WITH(
      a + at::ones({4, 3}), c10::Error, "got mixed torch.Tensor and DTensor");
  // In place, self keeps its placement: S0 += S1 redistributes the other.
  at::Tensor b = distribute_tensor(rnd({4, 3}, 2), mesh, {S1});
  at::Tensor c = a.clone();
  c.add_(b);
  EXPECT_EQ(*placements_of(c), (Placements{S0}));
  EXPECT_TRUE(at::allclose(full_tensor(c), rnd({4, 3}, 1) + rnd({4, 3}, 2)));
  // An in-place op whose self would have to change is refused.
  at::Tensor p = from_local(rnd({4, 3}, 3), mesh, {Partial{}});
  MG_EXPECT_THROW_WITH(p.add_(1), c10::Error, "must keep its self's placement");
  auto& dispatcher = c10::Dispatcher::singleton();
  size_t known = 0;
  for (const auto& name : sharding_rule_ops()) {
    const auto dot = name.rfind('.');
    const std::string overload = name.substr(dot + 1);
    auto op = dispatcher.findOp(
        {name.substr(0, dot), overload == "default" ? "" : overload});
    EXPECT_TRUE(op.has_value())
        << name << " is in the table but not an operator";
    known += op.has_value();
  }
  EXPECT_GT(known, 100u);
}
