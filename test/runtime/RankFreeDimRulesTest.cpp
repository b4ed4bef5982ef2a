// Differential tests of the free-dim families (ops/FreeDims.h): ops along a
// dim (ops/AlongDimRules.cpp) and batched ops (ops/BatchRules.cpp), against
// the same ops on full tensors in this process (values, output placements,
// gradients), with even, uneven and empty shards (MESHGUARD_SWEEP=N adds
// random batch sizes). Run under meshguard-launch.

#include <torch/torch.h>

#include "DifferentialCase.h"

using namespace meshguard;
using namespace meshguard::testing;
using namespace meshguard::testing::differential;

namespace {

// The placements a free dim of `n` entries keeps: sharded only where no
// rank's block is empty (ops/FreeDims.h), else gathered.
std::optional<Placements> if_blocks(int64_t n, const Placements& p) {
  const int64_t k = world_size();
  const int64_t chunk = (n + k - 1) / k;
  const bool full = chunk > 0 && (n + chunk - 1) / chunk >= k;
  return full ? std::optional<Placements>(p) : std::nullopt;
}

} // namespace

TEST(FreeDimRules, SortAndScansAlongADim) {
  auto mesh = world_mesh();
  for (int64_t n : row_counts()) {
    auto x = rnd({n, 6}, 91);
    // Sorting along the columns leaves the rows free: no collective.
    run_case(
        {"sort(S0, dim 1)",
         [](auto& t) { return std::get<0>(t[0].sort(1)); },
         {x},
         {{S0}},
         if_blocks(n, {S0})},
        mesh);
    run_case(
        {"cumprod(S0, dim 1)",
         [](auto& t) { return t[0].cumprod(1); },
         {x},
         {{S0}},
         if_blocks(n, {S0})},
        mesh);
    // Along the sharded dim: the shard moves to the other dim.
    run_case(
        {"sort(S1, dim 1) (moved)",
         [](auto& t) { return std::get<0>(t[0].sort(1)); },
         {x},
         {{S1}},
         std::nullopt},
        mesh);
    run_case(
        {"tril(S0)",
         [](auto& t) { return t[0].tril(); },
         {x},
         {{S0}},
         std::nullopt},
        mesh);
    run_case(
        {"constant_pad_nd(S0, cols)",
         [](auto& t) { return at::constant_pad_nd(t[0], {1, 2}, 0.5); },
         {x},
         {{S0}},
         if_blocks(n, {S0})},
        mesh);
  }
}

TEST(FreeDimRules, PoolingConvolutionNormOnTheBatch) {
  auto mesh = world_mesh();
  for (int64_t n : row_counts()) {
    auto img = rnd({n, 2, 6, 6}, 92), w = rnd({4, 2, 3, 3}, 93),
         b = rnd({4}, 94);
    run_case(
        {"conv2d(S0, R, R) (batch)",
         [](auto& t) { return at::conv2d(t[0], t[1], t[2], 1, 1); },
         {img, w, b},
         {{S0}, {R}, {R}},
         if_blocks(n, {S0}),
         true,
         {if_blocks(n, {S0}), if_blocks(n, {P}), if_blocks(n, {P})}},
        mesh);
    run_case(
        {"max_pool2d(S0)",
         [](auto& t) { return at::max_pool2d(t[0], {2, 2}); },
         {img},
         {{S0}},
         if_blocks(n, {S0})},
        mesh);
    run_case(
        {"avg_pool2d(S1) (channels)",
         [](auto& t) { return at::avg_pool2d(t[0], {2, 2}); },
         {img},
         {{S1}},
         if_blocks(n > 0 ? 2 : 0, {S1})},
        mesh);
    run_case(
        {"upsample_bilinear2d(S0)",
         [](auto& t) { return at::upsample_bilinear2d(t[0], {12, 12}, false); },
         {img},
         {{S0}},
         if_blocks(n, {S0})},
        mesh);
    run_case(
        {"group_norm(S0)",
         [](auto& t) { return at::group_norm(t[0], 2, t[1], t[2]); },
         {rnd({n, 4, 3, 3}, 95), rnd({4}, 96), rnd({4}, 97)},
         {{S0}, {R}, {R}},
         if_blocks(n, {S0})},
        mesh);
  }
  // Output channels: a weight sharded on dim 0 gives channel-sharded outputs.
  if (4 % world_size() == 0) {
    auto img = rnd({3, 2, 6, 6}, 98), w = rnd({4, 2, 3, 3}, 99),
         b = rnd({4}, 100);
    run_case(
        {"conv2d(R, S0, S0) (output channels)",
         [](auto& t) { return at::conv2d(t[0], t[1], t[2], 1, 1); },
         {img, w, b},
         {{R}, {S0}, {S0}},
         Placements{S1}},
        mesh);
  }
}

// Batch norm in training: the channel dim is free; the running statistics
// are updated in place where they are (their blocks, or whole), never on a
// redistributed copy.
TEST(FreeDimRules, BatchNormUpdatesRunningStatisticsInPlace) {
  auto mesh = world_mesh();
  // A batch of 2 per rank: no rank's block of the batch dim is empty, so
  // evaluation may keep it sharded.
  const int64_t c = 4 * world_size();
  auto x = rnd({2 * world_size(), c, 3, 3}, 110), w = rnd({c}, 111),
       b = rnd({c}, 112);
  for (const Placements& stats : {Placements{S0}, Placements{R}}) {
    for (const Placements& input :
         {Placements{S1}, Placements{S0}, Placements{R}}) {
      auto mean = torch::zeros({c}), var = torch::ones({c});
      auto expected =
          at::batch_norm(x, w, b, mean, var, true, 0.1, 1e-5, false);
      auto dmean = distribute_tensor(torch::zeros({c}), mesh, stats);
      auto dvar = distribute_tensor(torch::ones({c}), mesh, stats);
      auto out = at::batch_norm(
          distribute_tensor(x, mesh, input),
          distribute_tensor(w, mesh, stats),
          distribute_tensor(b, mesh, stats),
          dmean,
          dvar,
          true,
          0.1,
          1e-5,
          false);
      const std::string what = "batch_norm(input " + to_string(input) +
          ", statistics " + to_string(stats) + ")";
      EXPECT_TRUE(torch::allclose(full_tensor(out), expected, 1e-5, 1e-5))
          << what;
      EXPECT_EQ(
          to_string(*placements_of(out)),
          to_string(stats == Placements{S0} ? Placements{S1} : Placements{R}))
          << what;
      EXPECT_EQ(to_string(*placements_of(dmean)), to_string(stats)) << what;
      EXPECT_TRUE(torch::allclose(full_tensor(dmean), mean, 1e-5, 1e-5))
          << what << ": running mean";
      EXPECT_TRUE(torch::allclose(full_tensor(dvar), var, 1e-5, 1e-5))
          << what << ": running var";
    }
  }
  // Evaluation: the statistics are constants, the batch stays sharded.
  auto mean = rnd({c}, 113), var = rnd({c}, 114).abs() + 0.5;
  auto expected = at::batch_norm(x, w, b, mean, var, false, 0.1, 1e-5, false);
  auto out = at::batch_norm(
      distribute_tensor(x, mesh, {S0}),
      distribute_tensor(w, mesh, {R}),
      distribute_tensor(b, mesh, {R}),
      distribute_tensor(mean, mesh, {R}),
      distribute_tensor(var, mesh, {R}),
      false,
      0.1,
      1e-5,
      false);
  EXPECT_TRUE(torch::allclose(full_tensor(out), expected, 1e-5, 1e-5));
  EXPECT_EQ(to_string(*placements_of(out)), to_string(Placements{S0}));
}

namespace {

// Attention as a model calls it; libtorch 1.13 has no fused kernel, so
// there the same math runs op by op (by other rules: their placements are
// not the fused kernel's, the values are the same).
constexpr bool kFusedAttention = TORCH_VERSION_MAJOR >= 2;
at::Tensor attention(const std::vector<at::Tensor>& t, bool causal) {
#if TORCH_VERSION_MAJOR >= 2
  return at::scaled_dot_product_attention(t[0], t[1], t[2], {}, 0.0, causal);
#else
  at::Tensor scores = at::matmul(t[0], t[1].transpose(-2, -1)) /
      std::sqrt(static_cast<double>(t[0].size(-1)));
  if (causal) {
    const int64_t s = t[0].size(-2);
    at::Tensor mask = at::ones({s, s}, at::kBool).triu(1);
    if (is_dtensor(scores)) {
      mask = distribute_tensor(mask, world_mesh(), {R});
    }
    scores = scores.masked_fill(mask, -INFINITY);
  }
  return at::matmul(at::softmax(scores, -1), t[2]);
#endif
}

} // namespace

TEST(FreeDimRules, AttentionOnBatchAndHeads) {
  auto mesh = world_mesh();
  for (int64_t n : row_counts()) {
    auto q = rnd({n, 2, 6, 8}, 101), k = rnd({n, 2, 6, 8}, 102),
         v = rnd({n, 2, 6, 8}, 103);
    auto sdpa = [](auto& t) { return attention(t, true); };
    run_case(
        {"sdpa(S0, S0, S0) causal (batch)",
         sdpa,
         {q, k, v},
         {{S0}, {S0}, {S0}},
         kFusedAttention ? if_blocks(n, {S0}) : std::nullopt},
        mesh);
  }
  if (4 % world_size() == 0) {
    auto q = rnd({2, 4, 6, 8}, 104), k = rnd({2, 4, 6, 8}, 105),
         v = rnd({2, 4, 6, 8}, 106);
    auto sdpa = [](auto& t) { return attention(t, false); };
    run_case(
        {"sdpa(S1, S1, S1) (heads)",
         sdpa,
         {q, k, v},
         {{S1}, {S1}, {S1}},
         kFusedAttention ? std::optional<Placements>(Placements{S1})
                         : std::nullopt},
        mesh);
  }
}

TEST(FreeDimRules, BatchedLinearAlgebra) {
  auto mesh = world_mesh();
  for (int64_t n : row_counts()) {
    auto a = rnd({n, 3, 3}, 107);
    auto spd = at::matmul(a, a.transpose(1, 2)) + 3 * at::eye(3);
    run_case(
        {"inverse(S0)",
         [](auto& t) { return at::linalg_inv(t[0]); },
         {spd},
         {{S0}},
         if_blocks(n, {S0})},
        mesh);
    run_case(
        {"det(S0)",
         [](auto& t) { return at::linalg_det(t[0]); },
         {spd},
         {{S0}},
         if_blocks(n, {S0})},
        mesh);
    run_case(
        {"cholesky(S0)",
         [](auto& t) { return at::linalg_cholesky(t[0]); },
         {spd},
         {{S0}},
         if_blocks(n, {S0})},
        mesh);
  }
}
