// Differential tests of index_select, gather, scatter_add, index_add,
// nonzero, masked_select, masked_scatter (ops/TensorOpRules.cpp), of the
// reductions max/min (with and without a dim), prod, linalg_vector_norm,
// cumsum, topk, logsumexp, var/std (ops/ReductionRules.cpp) and of repeat/flip
// (ops/ViewRules.cpp), against the same ops on full tensors in this process
// (values, output placements, gradients). Run under meshguard-launch;
// MESHGUARD_SWEEP=N adds random row counts (uneven and empty shards).

#include <torch/torch.h>

#include "DifferentialCase.h"

using namespace meshguard;
using namespace meshguard::testing;
using namespace meshguard::testing::differential;

namespace {

std::optional<Placements> if_even(int64_t n, const Placements& p) {
  return n % world_size() == 0 && n > 0 ? std::optional<Placements>(p)
                                        : std::nullopt;
}

// A one-dim list (an int alone would pick var(bool unbiased)).
std::vector<int64_t> dims(int64_t d) {
  return {d};
}

} // namespace

TEST(TensorOpRules, IndexSelect) {
  auto mesh = world_mesh();
  for (int64_t n : row_counts()) {
    auto x = rnd({n, 6}, 61), cols = indices({4}, 6, 62);
    auto pick = [](auto& t) { return at::index_select(t[0], 1, t[1]); };
    run_case(
        {"index_select(S0, 1, R)",
         pick,
         {x, cols},
         {{S0}, {R}},
         Placements{S0}},
        mesh);
    run_case(
        {"index_select(S1, 1, R) (the indexed dim: moved)",
         pick,
         {x, cols},
         {{S1}, {R}},
         std::nullopt},
        mesh);
    if (n > 0) {
      auto rows = indices({5}, n, 63);
      run_case(
          {"index_select(R, 0, S0)",
           [](auto& t) { return at::index_select(t[0], 0, t[1]); },
           {x, rows},
           {{R}, {S0}},
           Placements{S0}},
          mesh);
    }
  }
}

TEST(TensorOpRules, GatherScatterAddIndexAdd) {
  auto mesh = world_mesh();
  for (int64_t n : row_counts()) {
    auto x = rnd({n, 6}, 64), idx = indices({n, 4}, 6, 65),
         src = rnd({n, 4}, 66), cols = indices({4}, 6, 67);
    auto gather1 = [](auto& t) { return at::gather(t[0], 1, t[1]); };
    run_case(
        {"gather(S0, 1, S0)", gather1, {x, idx}, {{S0}, {S0}}, Placements{S0}},
        mesh);
    run_case(
        {"gather(R, 1, S1)", gather1, {x, idx}, {{R}, {S1}}, Placements{S1}},
        mesh);
    run_case(
        {"gather(S1, 1, S0) (the gathered dim: moved)",
         gather1,
         {x, idx},
         {{S1}, {S0}},
         std::nullopt},
        mesh);
    if (n > 0) {
      auto rows = indices({3, 6}, n, 68);
      run_case(
          {"gather(S0, 0, R) (the gathered dim: moved)",
           [](auto& t) { return at::gather(t[0], 0, t[1]); },
           {x, rows},
           {{S0}, {R}},
           std::nullopt},
          mesh);
    }
    run_case(
        {"scatter_add(S0, 1, S0, S0)",
         [](auto& t) { return at::scatter_add(t[0], 1, t[1], t[2]); },
         {x, idx, src},
         {{S0}, {S0}, {S0}},
         Placements{S0}},
        mesh);
    run_case(
        {"index_add(S0, 1, R, S0)",
         [](auto& t) { return at::index_add(t[0], 1, t[1], t[2], 0.5); },
         {x, cols, src},
         {{S0}, {R}, {S0}},
         Placements{S0}},
        mesh);
    // Owner computes: self sharded on `dim`, each rank adds into its block.
    run_case(
        {"index_add(S1, 1, R, R)",
         [](auto& t) { return at::index_add(t[0], 1, t[1], t[2]); },
         {x, cols, src},
         {{S1}, {R}, {R}},
         Placements{S1}},
        mesh);
    run_case(
        {"scatter_add(S1, 1, R, R)",
         [](auto& t) { return at::scatter_add(t[0], 1, t[1], t[2]); },
         {x, idx, src},
         {{S1}, {R}, {R}},
         Placements{S1}},
        mesh);
    run_case(
        {"scatter_add_ in place on S1",
         [](auto& t) { return t[0].clone().scatter_add_(1, t[1], t[2]); },
         {x, idx, src},
         {{S1}, {R}, {R}},
         Placements{S1}},
        mesh);
  }
}

TEST(TensorOpRules, MaxMin) {
  auto mesh = world_mesh();
  for (int64_t n : row_counts()) {
    auto x = rnd({n, 6}, 69);
    if (n > 0) { // max of nothing is an error in torch too
      run_case(
          {"max() of S0",
           [](auto& t) { return t[0].max(); },
           {x},
           {{S0}},
           if_even(n, {Partial{ReduceOp::MAX}})},
          mesh);
      // 6 columns on 4 ranks leave an empty shard (no min): gathered then.
      run_case(
          {"min() of S1",
           [](auto& t) { return t[0].min(); },
           {x},
           {{S1}},
           if_even(6, {Partial{ReduceOp::MIN}})},
          mesh);
      run_case(
          {"max(0) of S0 (the reduced dim: moved)",
           [](auto& t) { return std::get<0>(t[0].max(0)); },
           {x},
           {{S0}},
           std::nullopt},
          mesh);
    }
    run_case(
        {"max(1) of S0: values",
         [](auto& t) { return std::get<0>(t[0].max(1)); },
         {x},
         {{S0}},
         Placements{S0}},
        mesh);
    run_case(
        {"max(1) of S0: indices",
         [](auto& t) { return std::get<1>(t[0].max(1)).to(at::kFloat); },
         {x},
         {{S0}},
         Placements{S0},
         /*backward=*/false},
        mesh);
    run_case(
        {"min(1, keepdim) of S0",
         [](auto& t) { return std::get<0>(t[0].min(1, true)); },
         {x},
         {{S0}},
         Placements{S0}},
        mesh);
  }
}

TEST(TensorOpRules, ProdAndNorms) {
  auto mesh = world_mesh();
  const Placement prod = Partial{ReduceOp::PRODUCT};
  for (int64_t n : row_counts()) {
    // Factors near 1 keep the product in range.
    auto x = rnd({n, 6}, 70).mul(0.2).add(1);
    // prod()'s backward calls nonzero() (its length depends on the data):
    // run on gathered operands.
    run_case(
        {"prod() of S0",
         [](auto& t) { return t[0].prod(); },
         {x},
         {{S0}},
         Placements{prod}},
        mesh);
    run_case(
        {"prod(0) of S0",
         [](auto& t) { return t[0].prod(0); },
         {x},
         {{S0}},
         Placements{prod}},
        mesh);
    run_case(
        {"prod(1) of S0",
         [](auto& t) { return t[0].prod(1); },
         {x},
         {{S0}},
         Placements{S0}},
        mesh);
    run_case(
        {"linalg_vector_norm(dim 1) of S0",
         [](auto& t) { return at::linalg_vector_norm(t[0], 2, {1}); },
         {x},
         {{S0}},
         Placements{S0}},
        mesh);
    run_case(
        {"norm(p=3, dim 1, keepdim) of S0",
         [](auto& t) { return at::norm(t[0], 3, {1}, true); },
         {x},
         {{S0}},
         Placements{S0}},
        mesh);
    if (n > 0) { // a norm's gradient at 0 is 0/0 in torch too
      run_case(
          {"norm() of S0 (gathered)",
           [](auto& t) { return t[0].norm(); },
           {x},
           {{S0}},
           Placements{R}},
          mesh);
    }
  }
}

// Activations reach their rules (pointwise) with their backwards.
TEST(TensorOpRules, Activations) {
  auto mesh = world_mesh();
  for (int64_t n : row_counts()) {
    auto x = rnd({n, 6}, 71);
    run_case(
        {"gelu of S1",
         [](auto& t) { return at::gelu(t[0]); },
         {x},
         {{S1}},
         Placements{S1}},
        mesh);
    run_case(
        {"silu of S0",
         [](auto& t) { return at::silu(t[0]); },
         {x},
         {{S0}},
         Placements{S0}},
        mesh);
    run_case(
        {"sigmoid of S0",
         [](auto& t) { return at::sigmoid(t[0]); },
         {x},
         {{S0}},
         Placements{S0}},
        mesh);
    run_case(
        {"tanh of S1",
         [](auto& t) { return at::tanh(t[0]); },
         {x},
         {{S1}},
         Placements{S1}},
        mesh);
    run_case(
        {"leaky_relu of S0",
         [](auto& t) { return at::leaky_relu(t[0], 0.1); },
         {x},
         {{S0}},
         Placements{S0}},
        mesh);
  }
}

// Partial operands: selection keeps a Partial.
TEST(TensorOpRules, PartialsPass) {
  auto mesh = world_mesh();
  const auto w = world_size();
  at::Tensor v = rnd({4, 6}, 72);
  at::Tensor p = from_local(v, mesh, {P});
  at::Tensor cols = distribute_tensor(indices({3}, 6, 73), mesh, {R});
  at::Tensor idx = distribute_tensor(indices({4, 2}, 6, 74), mesh, {R});
  at::Tensor got = at::index_select(p, 1, cols);
  EXPECT_EQ(to_string(*placements_of(got)), to_string(Placements{P}));
  EXPECT_TRUE(at::allclose(
      full_tensor(got),
      at::index_select(v, 1, to_local(cols)) * w,
      1e-4,
      1e-5));
  got = at::gather(p, 1, idx);
  EXPECT_EQ(to_string(*placements_of(got)), to_string(Placements{P}));
  EXPECT_TRUE(at::allclose(
      full_tensor(got), at::gather(v, 1, to_local(idx)) * w, 1e-4, 1e-5));
}

// cumsum, topk, logsumexp, var/std, repeat, flip (ops/ReductionRules.cpp,
// ops/ViewRules.cpp): a shard on the dim the op works along is moved, the
// others stay.
TEST(TensorOpRules, AlongADimAndTiles) {
  auto mesh = world_mesh();
  for (int64_t n : row_counts()) {
    auto x = rnd({n, 6}, 75);
    run_case(
        {"cumsum(S0, 1)",
         [](auto& t) { return t[0].cumsum(1); },
         {x},
         {{S0}},
         Placements{S0}},
        mesh);
    run_case(
        {"cumsum(S0, 0) (the summed dim: moved)",
         [](auto& t) { return t[0].cumsum(0); },
         {x},
         {{S0}},
         std::nullopt},
        mesh);
    run_case(
        {"topk(S0, 2, 1): values",
         [](auto& t) { return std::get<0>(t[0].topk(2, 1)); },
         {x},
         {{S0}},
         Placements{S0}},
        mesh);
    run_case(
        {"topk(S1, 2, 1): values (the dim: moved)",
         [](auto& t) { return std::get<0>(t[0].topk(2, 1)); },
         {x},
         {{S1}},
         std::nullopt},
        mesh);
    run_case(
        {"logsumexp(S0, 1)",
         [](auto& t) { return t[0].logsumexp(dims(1)); },
         {x},
         {{S0}},
         Placements{S0}},
        mesh);
    run_case(
        {"var(S0, 1)",
         [](auto& t) { return at::var(t[0], dims(1), /*unbiased=*/true); },
         {x},
         {{S0}},
         Placements{S0}},
        mesh);
    run_case(
        {"std(S1, 1, keepdim) (the reduced dim: moved)",
         [](auto& t) {
           return at::std(t[0], dims(1), /*unbiased=*/true, /*keepdim=*/true);
         },
         {x},
         {{S1}},
         std::nullopt},
        mesh);
    run_case(
        {"var_mean(S0, 1): mean",
         [](auto& t) {
           return std::get<1>(at::var_mean(t[0], dims(1), /*unbiased=*/true));
         },
         {x},
         {{S0}},
         Placements{S0}},
        mesh);
    run_case(
        {"repeat(S0, [1, 2])",
         [](auto& t) { return t[0].repeat({1, 2}); },
         {x},
         {{S0}},
         Placements{S0}},
        mesh);
    run_case(
        {"repeat(S1, [3, 1, 1]) (a new leading dim)",
         [](auto& t) { return t[0].repeat({3, 1, 1}); },
         {x},
         {{S1}},
         Placements{S2}},
        mesh);
    run_case(
        {"repeat(S0, [2, 1]) (the tiled dim: moved)",
         [](auto& t) { return t[0].repeat({2, 1}); },
         {x},
         {{S0}},
         std::nullopt},
        mesh);
    run_case(
        {"flip(S0, [1])",
         [](auto& t) { return t[0].flip({1}); },
         {x},
         {{S0}},
         Placements{S0}},
        mesh);
  }
}

// A Partial passes through the linear ones; new_ones / new_full of a
// Partial are Replicate, not Partial (every rank's ones would sum to the
// world size).
// Ops whose output depends on the values' count or order (nonzero,
// masked_select, masked_scatter and their backwards) run on gathered
// operands; an in-place one keeps its self's placement. masked_fill with 0
// keeps a Partial (norm's backward on a Partial reaches it).
TEST(TensorOpRules, ValueDependentOutputsAndZeroFills) {
  auto mesh = world_mesh();
  for (int64_t n : row_counts()) {
    auto x = rnd({n, 6}, 77);
    auto mask = rnd({n, 6}, 78).gt(0);
    run_case(
        {"masked_select(S0, S0)",
         [](auto& t) { return t[0].masked_select(t[1]); },
         {x, mask},
         {{S0}, {S0}},
         Placements{R}},
        mesh);
    run_case(
        {"masked_select(S1, R)",
         [](auto& t) { return t[0].masked_select(t[1]); },
         {x, mask},
         {{S1}, {R}},
         Placements{R}},
        mesh);
    run_case(
        {"nonzero(S0)",
         [](auto& t) { return t[0].nonzero(); },
         {mask},
         {{S0}},
         Placements{R},
         false},
        mesh);
    run_case(
        {"masked_scatter(S0, S0, R)",
         [](auto& t) { return t[0].masked_scatter(t[1], t[2]); },
         {x, mask, rnd({n * 6}, 79)},
         {{S0}, {S0}, {R}},
         Placements{R}},
        mesh);
    at::Tensor self = distribute_tensor(x, mesh, {S1});
    self.masked_scatter_(
        distribute_tensor(mask, mesh, {S0}),
        distribute_tensor(rnd({n * 6}, 79), mesh, {R}));
    EXPECT_EQ(to_string(*placements_of(self)), to_string(Placements{S1}));
    EXPECT_TRUE(
        at::equal(full_tensor(self), x.masked_scatter(mask, rnd({n * 6}, 79))));
  }
  at::Tensor v = rnd({4, 6}, 80);
  at::Tensor mask = v.gt(0);
  at::Tensor p = from_local(v, mesh, {P});
  at::Tensor got = p.masked_fill(distribute_tensor(mask, mesh, {R}), 0);
  EXPECT_EQ(to_string(*placements_of(got)), to_string(Placements{P}));
  EXPECT_TRUE(at::allclose(
      full_tensor(got), v.masked_fill(mask, 0) * world_size(), 1e-4, 1e-5));
  // Every rank's 1 would add up: the Partial is reduced first (scattered,
  // the cheaper move).
  got = p.masked_fill(distribute_tensor(mask, mesh, {R}), 1);
  EXPECT_EQ(to_string(*placements_of(got)), to_string(Placements{S0}));
  EXPECT_TRUE(at::allclose(
      full_tensor(got), (v * world_size()).masked_fill(mask, 1), 1e-4, 1e-5));
  run_case(
      {"norm() of P(sum)",
       [](auto& t) { return t[0].norm(); },
       {v},
       {{P}},
       Placements{R}},
      mesh);
}

TEST(TensorOpRules, PartialsThroughRunningSumsAndFilledFactories) {
  auto mesh = world_mesh();
  const auto w = world_size();
  at::Tensor v = rnd({4, 6}, 76);
  at::Tensor p = from_local(v, mesh, {P});
  at::Tensor got = p.cumsum(1);
  EXPECT_EQ(to_string(*placements_of(got)), to_string(Placements{P}));
  EXPECT_TRUE(at::allclose(full_tensor(got), v.cumsum(1) * w, 1e-4, 1e-5));
  got = p.repeat({2, 1});
  EXPECT_EQ(to_string(*placements_of(got)), to_string(Placements{P}));
  EXPECT_TRUE(at::allclose(full_tensor(got), v.repeat({2, 1}) * w, 1e-4, 1e-5));
  got = p.new_ones({4, 6});
  EXPECT_EQ(to_string(*placements_of(got)), to_string(Placements{R}));
  EXPECT_TRUE(at::equal(full_tensor(got), at::ones({4, 6})));
  got = p.new_full({3}, 2.5);
  EXPECT_EQ(to_string(*placements_of(got)), to_string(Placements{R}));
  EXPECT_TRUE(at::equal(full_tensor(got), at::full({3}, 2.5)));
  at::Tensor sharded = distribute_tensor(v, mesh, {S0});
  got = sharded.new_full({4, 2}, 7.0);
  EXPECT_EQ(to_string(*placements_of(got)), to_string(Placements{S0}));
  EXPECT_TRUE(at::equal(full_tensor(got), at::full({4, 2}, 7.0)));
}

// equal and is_same_size answer alike on every rank: equal compares the
// blocks and all-reduces the answer, whatever the placements.
TEST(TensorOpRules, EqualAndIsSameSizeAgreeOnEveryRank) {
  auto mesh = world_mesh();
  const int64_t n = 2 * world_size() + 1; // uneven
  auto a = rnd({n, 6}, 130), b = a.clone();
  b[n - 1][5] += 1; // differs in the last rank's block only
  auto da = distribute_tensor(a, mesh, {S0});
  EXPECT_TRUE(at::equal(da, distribute_tensor(a, mesh, {S0})));
  EXPECT_TRUE(at::equal(da, distribute_tensor(a, mesh, {R})));
  EXPECT_TRUE(at::equal(da, distribute_tensor(a, mesh, {S1})));
  EXPECT_FALSE(at::equal(da, distribute_tensor(b, mesh, {S0})));
  EXPECT_FALSE(at::equal(distribute_tensor(b, mesh, {R}), da));
  // A Partial sum whose parts add up to `a` exactly: rank 0 holds it all.
  auto part = mesh.coordinate()[0] == 0 ? a.clone() : at::zeros_like(a);
  auto partial = from_local(part, mesh, {P}, false, a.sizes().vec());
  EXPECT_TRUE(at::equal(partial, distribute_tensor(a, mesh, {R})));
  EXPECT_FALSE(at::equal(partial, distribute_tensor(b, mesh, {S0})));
  EXPECT_TRUE(at::is_same_size(da, distribute_tensor(b, mesh, {R})));
  EXPECT_FALSE(
      at::is_same_size(da, distribute_tensor(rnd({n, 5}, 131), mesh, {S0})));
}

// bernoulli(p) on a sharded p: each element drawn with its own probability,
// the same tensor on every rank (p of 0 and 1 pin the draws).
TEST(TensorOpRules, BernoulliDrawsEachElementWithItsProbability) {
  auto mesh = world_mesh();
  const int64_t n = 2 * world_size() + 1;
  auto p = at::zeros({n, 6});
  p.index_put_({at::indexing::Slice(), at::indexing::Slice(0, 3)}, 1.0);
  auto drawn = at::bernoulli(distribute_tensor(p, mesh, {S0}));
  EXPECT_EQ(to_string(*placements_of(drawn)), to_string(Placements{S0}));
  EXPECT_TRUE(at::equal(full_tensor(drawn), p));
  auto half =
      at::bernoulli(distribute_tensor(at::full({n, 64}, 0.5), mesh, {S1}));
  const double mean = full_tensor(half).mean().item<double>();
  EXPECT_GT(mean, 0.3);
  EXPECT_LT(mean, 0.7);
}
