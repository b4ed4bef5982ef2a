// Differential tests of advanced indexing (x.index, index_put, index_put_:
// ops/IndexRules.cpp) and of the squeeze_ and view.dtype views
// (ops/SqueezeRules.cpp, ops/ViewRules.cpp), written as a libtorch user
// writes them (TensorIndex), against the same calls on full tensors in this
// process (values, output placements, gradients). Run under
// meshguard-launch; MESHGUARD_SWEEP=N adds random row counts.

#include <torch/torch.h>

#include "DifferentialCase.h"

using namespace meshguard;
using namespace meshguard::testing;
using namespace meshguard::testing::differential;
using torch::indexing::Slice;

namespace {

// `count` distinct indices in [0, high): a put to a repeated index keeps
// one of the values in no fixed order.
at::Tensor distinct(int64_t count, int64_t high, int64_t seed) {
  auto gen = at::make_generator<at::CPUGeneratorImpl>(seed);
  return at::randperm(high, gen, at::kLong).narrow(0, 0, count);
}

} // namespace

// x[:, cols], x[rows], x[mask]: the dims not indexed keep their shards;
// sharded indices shard the result; the backward puts the gradient back
// (index_put with accumulation, a derived in-place form).
TEST(IndexRules, IndexKeepsTheShardsOfDimsNotIndexed) {
  auto mesh = world_mesh();
  for (int64_t n : row_counts()) {
    auto x = rnd({n, 6}, 120);
    auto cols = indices({4}, 6, 121);
    auto pick_cols = [](auto& t) { return t[0].index({Slice(), t[1]}); };
    run_case(
        {"x[:, cols] (x S0, cols R)",
         pick_cols,
         {x, cols},
         {{S0}, {R}},
         Placements{S0}},
        mesh);
    run_case(
        {"x[:, cols] (x S1: the indexed dim, moved)",
         pick_cols,
         {x, cols},
         {{S1}, {R}},
         std::nullopt},
        mesh);
    if (n > 0) {
      auto rows = indices({2 * world_size()}, n, 122);
      run_case(
          {"x[rows] (x R, rows S0)",
           [](auto& t) { return t[0].index({t[1]}); },
           {x, rows},
           {{R}, {S0}},
           Placements{S0}},
          mesh);
      run_case(
          {"x[rows, cols] (x S1, both R)",
           [](auto& t) { return t[0].index({t[1], t[2]}); },
           {x, rows, indices({2 * world_size()}, 6, 123)},
           {{S1}, {R}, {R}},
           std::nullopt},
          mesh);
    }
    auto mask = rnd({n, 6}, 124).gt(0);
    run_case(
        {"x[mask] (a data-dependent count: replicated)",
         [](auto& t) { return t[0].index({t[1]}); },
         {x, mask},
         {{S0}, {S0}},
         Placements{R}},
        mesh);
  }
}

// index_put writes each block where it lies: self's dims not indexed keep
// their shards, the values follow them; index_put_ keeps self's placement.
TEST(IndexRules, IndexPutWritesEachBlockWhereItLies) {
  auto mesh = world_mesh();
  for (int64_t n : row_counts()) {
    auto x = rnd({n, 6}, 130);
    auto cols = distinct(3, 6, 131);
    auto v = rnd({n, 3}, 132);
    auto put_cols = [](auto& t) {
      return at::index_put(
          t[0],
          c10::List<c10::optional<at::Tensor>>({c10::nullopt, t[1]}),
          t[2]);
    };
    run_case(
        {"index_put(x S0, [:, cols] R, v S0)",
         put_cols,
         {x, cols, v},
         {{S0}, {R}, {S0}},
         Placements{S0}},
        mesh);
    run_case(
        {"index_put(x S1, [:, cols] R, v R) (the indexed dim: moved)",
         put_cols,
         {x, cols, v},
         {{S1}, {R}, {R}},
         std::nullopt},
        mesh);
    if (n >= 3) {
      auto rows = indices({5}, n, 133); // repeats: accumulated
      auto w = rnd({5, 6}, 134);
      auto add_rows = [](auto& t) {
        return at::index_put(
            t[0],
            c10::List<c10::optional<at::Tensor>>({t[1]}),
            t[2],
            /*accumulate=*/true);
      };
      run_case(
          {"index_put(x S1, [rows] R, w S1, accumulate)",
           add_rows,
           {x, rows, w},
           {{S1}, {R}, {S1}},
           Placements{S1}},
          mesh);
      // In place, as a user writes x.index_put_({rows}, w).
      auto rows3 = distinct(3, n, 135);
      auto w3 = rnd({3, 6}, 136);
      auto expected = x.clone();
      expected.index_put_({rows3}, w3);
      auto dx = distribute_tensor(x, mesh, {S1});
      dx.index_put_(
          {distribute_tensor(rows3, mesh, {R})},
          distribute_tensor(w3, mesh, {R}));
      EXPECT_EQ(to_string(*placements_of(dx)), to_string(Placements{S1}));
      EXPECT_TRUE(torch::allclose(full_tensor(dx), expected));
      // Rows sharded where rows are put: self would have to move, which an
      // in-place op cannot (as in PyTorch): a clear error, self untouched.
      auto rows_sharded = distribute_tensor(x, mesh, {S0});
      try {
        rows_sharded.index_put_(
            {distribute_tensor(rows3, mesh, {R})},
            distribute_tensor(w3, mesh, {R}));
        ADD_FAILURE() << "index_put_ on rows sharded where they are put ran";
      } catch (const c10::Error& e) {
        EXPECT_NE(
            std::string(e.what()).find(
                "an in-place op must keep its self's placement"),
            std::string::npos)
            << e.what();
      }
      EXPECT_TRUE(torch::equal(full_tensor(rows_sharded), x));
    }
  }
}

// squeeze_ changes self's shape and placements in place; view(dtype) reads
// each block's bytes as another dtype.
TEST(IndexRules, SqueezeInPlaceAndDtypeViews) {
  auto mesh = world_mesh();
  const int64_t n = 2 * world_size();
  auto x = rnd({n, 1, 6}, 140);
  auto dx = distribute_tensor(x, mesh, {S0});
  dx.squeeze_(1);
  EXPECT_EQ(dx.sizes(), (std::vector<int64_t>{n, 6}));
  EXPECT_EQ(to_string(*placements_of(dx)), to_string(Placements{S0}));
  EXPECT_TRUE(torch::allclose(full_tensor(dx), x.squeeze(1)));

  auto row = rnd({1, n}, 141);
  auto drow = distribute_tensor(row, mesh, {S1});
  drow.squeeze_();
  EXPECT_EQ(drow.sizes(), (std::vector<int64_t>{n}));
  EXPECT_EQ(to_string(*placements_of(drow)), to_string(Placements{S0}));
  EXPECT_TRUE(torch::allclose(full_tensor(drow), row.squeeze()));

  auto y = rnd({n, 6}, 142);
  auto as_int = distribute_tensor(y, mesh, {S0}).view(at::kInt);
  EXPECT_EQ(to_string(*placements_of(as_int)), to_string(Placements{S0}));
  EXPECT_TRUE(torch::equal(full_tensor(as_int), y.view(at::kInt)));
  for (const Placements& p : {Placements{S0}, Placements{S1}}) {
    auto as_half = distribute_tensor(y, mesh, p).view(at::kHalf);
    EXPECT_EQ(as_half.sizes(), (std::vector<int64_t>{n, 12})) << to_string(p);
    EXPECT_TRUE(
        torch::equal(full_tensor(as_half).view(at::kShort), y.view(at::kShort)))
        << to_string(p);
  }
}
