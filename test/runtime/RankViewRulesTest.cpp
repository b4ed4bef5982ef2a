// Differential tests of the view and shape rules that pick, split and join
// (ops/ViewRules.cpp, ops/TensorOpRules.cpp): slice/narrow, select,
// split/split_with_sizes/chunk/unbind, flatten/unflatten, cat and stack,
// against the same ops on full tensors in this process (values, output
// placements, gradients). Run under meshguard-launch; MESHGUARD_SWEEP=N
// adds random row counts (uneven and empty shards).

#include <torch/torch.h>

#include "DifferentialCase.h"

using namespace meshguard;
using namespace meshguard::testing;
using namespace meshguard::testing::differential;

namespace {

// A weighted sum of the pieces, so that each piece's gradient differs.
at::Tensor weigh(const std::vector<at::Tensor>& pieces) {
  at::Tensor out = pieces[0];
  for (size_t i = 1; i < pieces.size(); ++i) {
    out = out + pieces[i] * static_cast<double>(i + 1);
  }
  return out;
}

std::vector<at::Tensor> reversed(std::vector<at::Tensor> v) {
  std::reverse(v.begin(), v.end());
  return v;
}

} // namespace

// A sharded DTensor's strides follow its local tensor's memory order: after
// a transpose it is not contiguous (as the full tensor is not), so reshape
// copies instead of viewing a local tensor that cannot be viewed.
TEST(ViewRules, StridesFollowTheLocalLayout) {
  auto mesh = world_mesh();
  const int64_t n = 2 * mesh.size() + 1; // uneven shards
  at::Tensor full = at::arange(n * 6, at::kFloat).view({n, 6});
  at::Tensor x = distribute_tensor(full, mesh, {Shard{0}});
  EXPECT_TRUE(x.is_contiguous());
  at::Tensor t = x.transpose(0, 1);
  EXPECT_EQ(t.strides(), full.transpose(0, 1).strides());
  EXPECT_FALSE(t.is_contiguous());
  EXPECT_TRUE(at::equal(
      full_tensor(t.reshape({-1})), full.transpose(0, 1).reshape({-1})));
  at::Tensor c = t.contiguous();
  EXPECT_TRUE(c.is_contiguous());
  EXPECT_TRUE(to_local(c).is_contiguous());
  EXPECT_TRUE(
      at::equal(full_tensor(c.view({-1})), full.t().contiguous().view({-1})));
  at::Tensor sliced =
      x.slice(1, 0, 3); // not dense locally: never claims to be contiguous
  EXPECT_FALSE(sliced.is_contiguous());
}

TEST(ViewRules, SliceNarrowSelect) {
  auto mesh = world_mesh();
  for (int64_t n : row_counts()) {
    auto x = rnd({n, 6}, 41);
    run_case(
        {"slice(1, 1, 5, 2) of S0",
         [](auto& t) { return t[0].slice(1, 1, 5, 2); },
         {x},
         {{S0}},
         Placements{S0}},
        mesh);
    run_case(
        {"slice(0, 0, n) of S0 (the whole dim: stays)",
         [n](auto& t) { return t[0].slice(0, 0, n); },
         {x},
         {{S0}},
         Placements{S0}},
        mesh);
    run_case(
        {"slice(0, -2) of S0 (part of the sharded dim: moved)",
         [](auto& t) { return t[0].slice(0, -2); },
         {x},
         {{S0}},
         std::nullopt},
        mesh);
    run_case(
        {"slice(0, 1, None, 2) of S1",
         [](auto& t) { return t[0].slice(0, 1, c10::nullopt, 2); },
         {x},
         {{S1}},
         Placements{S1}},
        mesh);
    run_case(
        {"narrow(1, 2, 3) of S0",
         [](auto& t) { return t[0].narrow(1, 2, 3); },
         {x},
         {{S0}},
         Placements{S0}},
        mesh);
    run_case(
        {"narrow(0, 0, min(n, 1)) of S0",
         [n](auto& t) { return t[0].narrow(0, 0, std::min<int64_t>(n, 1)); },
         {x},
         {{S0}},
         std::nullopt},
        mesh);
    run_case(
        {"select(1, 2) of S0",
         [](auto& t) { return t[0].select(1, 2); },
         {x},
         {{S0}},
         Placements{S0}},
        mesh);
    run_case(
        {"select(1, -1) of S0",
         [](auto& t) { return t[0].select(1, -1); },
         {x},
         {{S0}},
         Placements{S0}},
        mesh);
    if (n > 0) {
      run_case(
          {"select(0, n - 1) of S0 (the sharded dim: moved)",
           [n](auto& t) { return t[0].select(0, n - 1); },
           {x},
           {{S0}},
           std::nullopt},
          mesh);
    }
  }
}

TEST(ViewRules, SplitChunkUnbind) {
  auto mesh = world_mesh();
  for (int64_t n : row_counts()) {
    auto x = rnd({n, 6}, 42);
    run_case(
        {"split(2, 1) of S0",
         [](auto& t) { return weigh(t[0].split(2, 1)); },
         {x},
         {{S0}},
         Placements{S0}},
        mesh);
    run_case(
        {"split(4, 1) of S0 (a shorter last piece, joined by cat)",
         [](auto& t) { return at::cat(reversed(t[0].split(4, 1)), 1); },
         {x},
         {{S0}},
         Placements{S0}},
        mesh);
    run_case(
        {"split_with_sizes({1, 5}, 1) of S0",
         [](auto& t) {
           return at::cat(reversed(t[0].split_with_sizes({1, 5}, 1)), 1);
         },
         {x},
         {{S0}},
         Placements{S0}},
        mesh);
    run_case(
        {"chunk(3, 1) of S0",
         [](auto& t) { return weigh(t[0].chunk(3, 1)); },
         {x},
         {{S0}},
         Placements{S0}},
        mesh);
    run_case(
        {"split(1, 0) of S0 (the sharded dim: moved), stacked back on dim 1",
         [](auto& t) { return at::stack(reversed(t[0].split(1, 0)), 1); },
         {x},
         {{S0}},
         std::nullopt},
        mesh);
    run_case(
        {"unbind(1) of S0, stacked on dim 0",
         [](auto& t) { return at::stack(reversed(t[0].unbind(1)), 0); },
         {x},
         {{S0}},
         Placements{S1}},
        mesh);
    run_case(
        {"split(3, 1) of S1 (the sharded dim: moved)",
         [](auto& t) { return weigh(t[0].split(3, 1)); },
         {x},
         {{S1}},
         std::nullopt},
        mesh);
  }
}

TEST(ViewRules, FlattenUnflatten) {
  auto mesh = world_mesh();
  for (int64_t n : row_counts()) {
    auto x3 = rnd({n, 2, 3}, 43), x = rnd({n, 6}, 44);
    run_case(
        {"flatten(1) of S0",
         [](auto& t) { return t[0].flatten(1); },
         {x3},
         {{S0}},
         n > 0 ? std::optional<Placements>(Placements{S0}) : std::nullopt},
        mesh);
    run_case(
        {"unflatten(1, {2, 3}) of S0",
         [](auto& t) { return t[0].unflatten(1, {2, 3}); },
         {x},
         {{S0}},
         n > 0 ? std::optional<Placements>(Placements{S0}) : std::nullopt},
        mesh);
    run_case(
        {"flatten() of S0",
         [](auto& t) { return t[0].flatten(); },
         {x3},
         {{S0}},
         std::nullopt},
        mesh);
  }
}

TEST(ViewRules, CatStack) {
  auto mesh = world_mesh();
  for (int64_t n : row_counts()) {
    auto a = rnd({n, 6}, 45), b = rnd({n, 2}, 46), c = rnd({n + 1, 6}, 47),
         d = rnd({n, 6}, 48);
    auto empty = rnd({0}, 49);
    run_case(
        {"cat({S0, S0}, 1)",
         [](auto& t) { return at::cat({t[0], t[1]}, 1); },
         {a, b},
         {{S0}, {S0}},
         Placements{S0}},
        mesh);
    run_case(
        {"cat({S1, S1}, 0)",
         [](auto& t) { return at::cat({t[0], t[1]}, 0); },
         {a, c},
         {{S1}, {S1}},
         Placements{S1}},
        mesh);
    run_case(
        {"cat({S0, S0}, 0) (the sharded dim: moved)",
         [](auto& t) { return at::cat({t[0], t[1]}, 0); },
         {a, c},
         {{S0}, {S0}},
         std::nullopt},
        mesh);
    run_case(
        {"cat({S0, R}, 1) (R is sharded locally)",
         [](auto& t) { return at::cat({t[0], t[1]}, 1); },
         {a, b},
         {{S0}, {R}},
         Placements{S0}},
        mesh);
    run_case(
        {"cat({S0, 1-D empty R, S0}, 1) (the empty operand is skipped, as torch.cat does)",
         [](auto& t) { return at::cat({t[0], t[1], t[2]}, 1); },
         {a, empty, d},
         {{S0}, {R}, {S0}},
         Placements{S0},
         /*backward=*/false},
        mesh); // libtorch's cat backward gives a skipped operand a plain
               // zeros({0}) gradient
    run_case(
        {"stack({S0, S0}, 1)",
         [](auto& t) { return at::stack({t[0], t[1]}, 1); },
         {a, d},
         {{S0}, {S0}},
         Placements{S0}},
        mesh);
    run_case(
        {"stack({S0, S0}, 0)",
         [](auto& t) { return at::stack({t[0], t[1]}, 0); },
         {a, d},
         {{S0}, {S0}},
         Placements{S1}},
        mesh);
    run_case(
        {"stack({S1, S0}, -1) (one is moved)",
         [](auto& t) { return at::stack({t[0], t[1]}, -1); },
         {a, d},
         {{S1}, {S0}},
         std::nullopt},
        mesh);
  }
}

TEST(ViewRules, TwoByTwoMesh) {
  ASSERT_EQ(world_size(), 4);
  auto mesh = init_device_mesh("cpu", {2, 2});
  for (int64_t n : {8, 5, 1, 0}) {
    auto a = rnd({n, 6}, 50), b = rnd({n, 4}, 51);
    run_case(
        {"slice(1, 1, 6) of [S0,S1] (dim 1 moved)",
         [](auto& t) { return t[0].slice(1, 1, 6); },
         {a},
         {{S0, S1}},
         std::nullopt},
        mesh);
    run_case(
        {"select(1, 3) of [S0,S0]",
         [](auto& t) { return t[0].select(1, 3); },
         {a},
         {{S0, S0}},
         Placements{S0, S0}},
        mesh);
    run_case(
        {"split(2, 1) of [S0,R]",
         [](auto& t) { return weigh(t[0].split(2, 1)); },
         {a},
         {{S0, R}},
         Placements{S0, R}},
        mesh);
    run_case(
        {"cat({[S0,S1], [S0,R]}, 1)",
         [](auto& t) { return at::cat({t[0], t[1]}, 1); },
         {a, b},
         {{S0, S1}, {S0, R}},
         std::nullopt},
        mesh);
    run_case(
        {"stack({[S0,S0], [S0,S0]}, 0)",
         [](auto& t) { return at::stack({t[0], t[0] * 2}, 0); },
         {a},
         {{S0, S0}},
         Placements{S1, S1}},
        mesh);
  }
  // Only mesh dim 1 shards: the split needs sizes divisible by its 2, not by
  // the 4 of the whole mesh (before, the view gathered).
  run_case(
      {"view(2, 2, 6) of [R,S0]",
       [](auto& t) { return t[0].view({2, 2, 6}); },
       {rnd({4, 6}, 52)},
       {{R, S0}},
       Placements{R, S0}},
      mesh);
  run_case(
      {"view(2, 2, 6) of [S1,R]",
       [](auto& t) { return t[0].view({2, 2, 6}); },
       {rnd({2, 12}, 53)},
       {{S1, R}},
       Placements{S1, R}},
      mesh);
}

// Partial operands: picking, splitting and joining entries are linear, so
// a Partial passes unreduced.
TEST(ViewRules, PartialsPass) {
  auto mesh = world_mesh();
  const auto w = world_size();
  at::Tensor v = rnd({4, 6}, 52), u = rnd({3, 6}, 53);
  at::Tensor p = from_local(v, mesh, {Partial{}}),
             q = from_local(u, mesh, {Partial{}});
  auto expect = [&](const at::Tensor& t, const at::Tensor& value) {
    ASSERT_TRUE(is_dtensor(t));
    EXPECT_EQ(to_string(*placements_of(t)), to_string(Placements{Partial{}}));
    EXPECT_TRUE(at::allclose(full_tensor(t), value, 1e-4, 1e-5));
  };
  expect(p.select(1, 2), v.select(1, 2) * w);
  expect(p.slice(0, 1, 3), v.slice(0, 1, 3) * w);
  expect(p.split(4, 1)[1], v.split(4, 1)[1] * w);
  expect(at::cat({p, q}, 0), at::cat({v, u}, 0) * w);
  expect(at::stack({p, p}, 2), at::stack({v, v}, 2) * w);
}
