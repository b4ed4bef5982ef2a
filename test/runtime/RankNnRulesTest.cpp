// Differential tests of the nn rules (ops/NnRules.cpp): embedding with row-
// and column-sharded weights, layer_norm, dropout, mse_loss, cross_entropy /
// nll_loss, against the same ops on full tensors in this process (values,
// output placements, gradients and their placements). Run under
// meshguard-launch; MESHGUARD_SWEEP=N adds random row counts.

#include <torch/torch.h>

#include "DifferentialCase.h"

using namespace meshguard;
using namespace meshguard::testing;
using namespace meshguard::testing::differential;

TEST(NnRules, Embedding) {
  auto mesh = world_mesh();
  const int64_t w = world_size();
  // Vocabulary sizes: even, uneven, fewer rows than ranks.
  for (int64_t vocab : {2 * w, 2 * w + 1, int64_t{1}}) {
    for (int64_t n : row_counts()) {
      auto weight = rnd({vocab, 6}, 21), idx = indices({n, 3}, vocab, 22);
      auto lookup = [](auto& t) { return at::embedding(t[0], t[1]); };
      // The loss's Replicate gradient reaches the lookup: its weight
      // gradient is Replicate (RankParallelTest checks the Shard(1) one).
      run_case(
          {"column-wise: weight S1, indices R",
           lookup,
           {weight, idx},
           {{S1}, {R}},
           Placements{S2}},
          mesh);
      // Row-wise: each rank's rows, zeros elsewhere, summed.
      run_case(
          {"row-wise: weight S0, indices R",
           lookup,
           {weight, idx},
           {{S0}, {R}},
           Placements{P}},
          mesh);
      run_case(
          {"batch: weight R, indices S0",
           lookup,
           {weight, idx},
           {{R}, {S0}},
           Placements{S0},
           true,
           {Placements{P}}},
          mesh);
      run_case(
          {"column-wise with padding_idx 0",
           [](auto& t) { return at::embedding(t[0], t[1], 0); },
           {weight, idx},
           {{S1}, {R}},
           Placements{S2}},
          mesh);
    }
  }
}

TEST(NnRules, LayerNorm) {
  auto mesh = world_mesh();
  for (int64_t n : row_counts()) {
    auto x = rnd({n, 6}, 23), gamma = rnd({6}, 24), beta = rnd({6}, 25);
    run_case(
        {"layer_norm of S0",
         [](auto& t) { return at::layer_norm(t[0], {6}, t[1], t[2]); },
         {x, gamma, beta},
         {{S0}, {R}, {R}},
         Placements{S0},
         true,
         {Placements{S0}, Placements{P}, Placements{P}}},
        mesh);
    auto x3 = rnd({n, 2, 4}, 26);
    run_case(
        {"layer_norm over the last two dims of S0",
         [](auto& t) { return at::layer_norm(t[0], {2, 4}); },
         {x3},
         {{S0}},
         Placements{S0}},
        mesh);
    run_case(
        {"layer_norm of S1 (the normalized dim: moved)",
         [](auto& t) { return at::layer_norm(t[0], {6}, t[1], t[2]); },
         {x, gamma, beta},
         {{S1}, {R}, {R}},
         std::nullopt},
        mesh);
  }
}

TEST(NnRules, Dropout) {
  auto mesh = world_mesh();
  for (int64_t n : row_counts()) {
    auto x = rnd({n, 6}, 27);
    // The same seed before both runs: the mask must equal one process's.
    auto drop = [](auto& t) {
      torch::manual_seed(99);
      return at::dropout(t[0], 0.3, /*train=*/true);
    };
    run_case(
        {"dropout of S0",
         drop,
         {x},
         {{S0}},
         Placements{S0},
         true,
         {Placements{S0}}},
        mesh);
    run_case({"dropout of S1", drop, {x}, {{S1}}, Placements{S1}}, mesh);
    run_case(
        {"dropout, eval",
         [](auto& t) { return at::dropout(t[0], 0.3, false) * 1; },
         {x},
         {{S0}},
         Placements{S0}},
        mesh);
  }
}

TEST(NnRules, MseLoss) {
  auto mesh = world_mesh();
  for (int64_t n : row_counts()) {
    auto a = rnd({n, 3}, 28), b = rnd({n, 3}, 29);
    if (n > 0) { // a mean over nothing is NaN in torch too
      run_case(
          {"mse_loss mean, S0 x S0",
           [](auto& t) { return at::mse_loss(t[0], t[1]); },
           {a, b},
           {{S0}, {S0}},
           Placements{P},
           true,
           {Placements{S0}, Placements{S0}}},
          mesh);
      run_case(
          {"mse_loss mean, S1 x S1",
           [](auto& t) { return at::mse_loss(t[0], t[1]); },
           {a, b},
           {{S1}, {S1}},
           Placements{P}},
          mesh);
    }
    run_case(
        {"mse_loss sum, S0 x S0",
         [](auto& t) { return at::mse_loss(t[0], t[1], at::Reduction::Sum); },
         {a, b},
         {{S0}, {S0}},
         Placements{P}},
        mesh);
    run_case(
        {"mse_loss none, S0 x S0",
         [](auto& t) { return at::mse_loss(t[0], t[1], at::Reduction::None); },
         {a, b},
         {{S0}, {S0}},
         Placements{S0}},
        mesh);
  }
}

TEST(NnRules, CrossEntropyAndNllLoss) {
  auto mesh = world_mesh();
  for (int64_t n : row_counts()) {
    auto logits = rnd({n, 5}, 30), target = indices({n}, 5, 31);
    // Class weights have no gradient in torch: a constant, Replicate on
    // DTensors.
    auto class_weight = [&mesh](const at::Tensor& like) {
      at::Tensor cw = rnd({5}, 32).abs();
      return is_dtensor(like) ? distribute_tensor(cw, mesh, {R}) : cw;
    };
    if (n > 0) { // (an empty batch's mean is 0 / 0 on both sides)
      // A mean: each shard's sum over the batch's total weight (all-reduced),
      // exact for uneven shards, class weights and ignored targets.
      run_case(
          {"cross_entropy mean, S0",
           [](auto& t) { return at::cross_entropy_loss(t[0], t[1]); },
           {logits, target},
           {{S0}, {S0}},
           Placements{P},
           true,
           {Placements{S0}}},
          mesh);
      run_case(
          {"nll_loss mean with class weights and ignore_index 2, S0",
           [&](auto& t) {
             return at::nll_loss(
                 at::log_softmax(t[0], 1),
                 t[1],
                 class_weight(t[0]),
                 at::Reduction::Mean,
                 2);
           },
           {logits, target},
           {{S0}, {S0}},
           Placements{P},
           true,
           {Placements{S0}}},
          mesh);
    }
    run_case(
        {"cross_entropy sum, S0",
         [](auto& t) {
           return at::cross_entropy_loss(t[0], t[1], {}, at::Reduction::Sum);
         },
         {logits, target},
         {{S0}, {S0}},
         Placements{P},
         true,
         {Placements{S0}}},
        mesh);
    run_case(
        {"nll_loss none with class weights and ignore_index 2, S0",
         [&](auto& t) {
           return at::nll_loss(
               at::log_softmax(t[0], 1),
               t[1],
               class_weight(t[0]),
               at::Reduction::None,
               2);
         },
         {logits, target},
         {{S0}, {S0}},
         Placements{S0}},
        mesh);
    run_case(
        {"nll_loss sum with class weights, S0",
         [&](auto& t) {
           return at::nll_loss(
               at::log_softmax(t[0], 1),
               t[1],
               class_weight(t[0]),
               at::Reduction::Sum);
         },
         {logits, target},
         {{S0}, {S0}},
         Placements{P}},
        mesh);
    // The classes sharded (a vocab-parallel loss, PyTorch's loss_parallel;
    // 5 classes: uneven blocks, an empty one on 4 ranks): log_softmax keeps
    // the shard (the rows' max and sum of exponentials all-reduced), the
    // loss is whole, the logits' gradient sharded as they are.
    run_case(
        {"log_softmax over the sharded class dim, S1",
         [](auto& t) { return at::log_softmax(t[0], 1); },
         {logits},
         {{S1}},
         Placements{S1},
         true,
         {Placements{S1}}},
        mesh);
    if (n > 0) {
      run_case(
          {"cross_entropy mean, classes S1",
           [](auto& t) { return at::cross_entropy_loss(t[0], t[1]); },
           {logits, target},
           {{S1}, {R}},
           Placements{R},
           true,
           {Placements{S1}}},
          mesh);
      run_case(
          {"nll_loss mean with class weights and ignore_index 2, classes S1",
           [&](auto& t) {
             return at::nll_loss(
                 at::log_softmax(t[0], 1),
                 t[1],
                 class_weight(t[0]),
                 at::Reduction::Mean,
                 2);
           },
           {logits, target},
           {{S1}, {R}},
           Placements{R},
           true,
           {Placements{S1}}},
          mesh);
    }
    run_case(
        {"cross_entropy sum, classes S1",
         [](auto& t) {
           return at::cross_entropy_loss(t[0], t[1], {}, at::Reduction::Sum);
         },
         {logits, target},
         {{S1}, {R}},
         Placements{R},
         true,
         {Placements{S1}}},
        mesh);
    run_case(
        {"nll_loss none with class weights and ignore_index 2, classes S1",
         [&](auto& t) {
           return at::nll_loss(
               at::log_softmax(t[0], 1),
               t[1],
               class_weight(t[0]),
               at::Reduction::None,
               2);
         },
         {logits, target},
         {{S1}, {R}},
         Placements{R},
         true,
         {Placements{S1}}},
        mesh);
  }
}
