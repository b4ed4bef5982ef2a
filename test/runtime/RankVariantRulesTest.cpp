// Differential tests of the forms derived from a functional rule
// (ops/Variants.cpp: in-place and out=) and of the _foreach_ ops
// (ops/Foreach.cpp), against the same calls on full tensors in this process.
// Run under meshguard-launch.

#include <limits>

#include <torch/torch.h>

#include "DifferentialCase.h"

using namespace meshguard;
using namespace meshguard::testing;
using namespace meshguard::testing::differential;

namespace {

// An out tensor like `t` in the given placements (a plain one for a plain
// `t`, as in the reference run).
at::Tensor out_like(const at::Tensor& t, const Placements& placements) {
  at::Tensor out = at::empty_like(t.detach());
  return is_dtensor(out) ? redistribute(out, placements) : out;
}

} // namespace

TEST(VariantRules, OutFormsKeepTheOutPlacement) {
  auto mesh = world_mesh();
  for (int64_t n : row_counts()) {
    auto x = rnd({n, 6}, 81), y = rnd({n, 6}, 82);
    // add.out from add.Tensor: sharded alike, the out tensor too.
    run_case(
        {"add.out(S0, S0, out=S0)",
         [](auto& t) {
           at::Tensor out = out_like(t[0], {S0});
           at::add_out(out, t[0], t[1], 2);
           return out;
         },
         {x, y},
         {{S0}, {S0}},
         Placements{S0},
         /*backward=*/false},
        mesh);
    // The out tensor decides the strategy: Replicate gathers the operands.
    run_case(
        {"mul.out(S0, S0, out=R)",
         [](auto& t) {
           at::Tensor out = out_like(t[0], {R});
           at::mul_out(out, t[0], t[1]);
           return out;
         },
         {x, y},
         {{S0}, {S0}},
         Placements{R},
         false},
        mesh);
    // A reduction's out form: sum over the sharded dim into a Partial out.
    run_case(
        {"sum.IntList_out(S0, dim 0, out=P)",
         [](auto& t) {
           at::Tensor out = at::empty({6}, t[0].options());
           if (is_dtensor(t[0])) {
             out = from_local(
                 at::empty({6}),
                 world_mesh(),
                 {P},
                 false,
                 std::vector<int64_t>{6});
           }
           at::sum_out(out, t[0], at::IntArrayRef{0});
           return out;
         },
         {x},
         {{S0}},
         Placements{P},
         false},
        mesh);
    // An out tensor of another shape is resized, its DTensor follows.
    run_case(
        {"sigmoid.out into a resized out",
         [](auto& t) {
           at::Tensor out = at::empty({0}, t[0].options());
           if (is_dtensor(t[0])) {
             out = from_local(
                 at::empty({0}),
                 world_mesh(),
                 {S0},
                 false,
                 std::vector<int64_t>{0});
           }
           at::sigmoid_out(out, t[0]);
           return out;
         },
         {x},
         {{S0}},
         Placements{S0},
         false},
        mesh);
  }
}

TEST(VariantRules, InPlaceFormsFromFunctionalRules) {
  auto mesh = world_mesh();
  for (int64_t n : row_counts()) {
    auto a = rnd({n, 6}, 83), b = rnd({6, 6}, 84), c = rnd({n, 6}, 85);
    // addmm_ from addmm: self row-sharded, mat1 row-sharded, mat2 whole.
    run_case(
        {"addmm_(S0, S0, R)",
         [](auto& t) { return t[0].clone().addmm_(t[1], t[2], 0.5, 2); },
         {c, a, b},
         {{S0}, {S0}, {R}},
         Placements{S0}},
        mesh);
    run_case(
        {"hypot_(S1, S1)",
         [](auto& t) { return t[0].clone().hypot_(t[1]); },
         {a, c},
         {{S1}, {S1}},
         Placements{S1},
         false},
        mesh);
  }
}

TEST(VariantRules, OutTensorThatCannotFitIsAnError) {
  auto mesh = world_mesh();
  auto x = distribute_tensor(rnd({4, 6}, 86), mesh, {S0});
  // sigmoid is not linear: no strategy gives a Partial output.
  auto out = from_local(
      at::zeros({4, 6}), mesh, {P}, false, std::vector<int64_t>{4, 6});
  try {
    at::sigmoid_out(out, x);
    FAIL() << "expected an error";
  } catch (const c10::Error& e) {
    EXPECT_NE(
        std::string(e.what()).find(
            "out= op writes its out tensors in the placements they have"),
        std::string::npos)
        << e.what();
  }
  // A plain out tensor with DTensor operands is refused as mixed (zeros
  // too: promoting it to a DTensor would write the result into a copy).
  auto plain = at::zeros({6});
  EXPECT_THROW(at::sum_out(plain, x, at::IntArrayRef{0}), c10::Error);
}

TEST(ForeachRules, ElementByElement) {
  auto mesh = world_mesh();
  for (int64_t n : row_counts()) {
    auto a = rnd({n, 6}, 87), b = rnd({n, 6}, 88), c = rnd({3, n}, 89),
         d = rnd({3, n}, 90);
    run_case(
        {"_foreach_add.List([S0, S1], [S0, S1])",
         [](auto& t) {
           auto r = at::_foreach_add({t[0], t[2]}, {t[1], t[3]}, 2);
           return at::cat({r[0].reshape({-1}), r[1].reshape({-1})});
         },
         {a, b, c, d},
         {{S0}, {S0}, {S1}, {S1}},
         std::nullopt,
         /*backward=*/false},
        mesh);
    run_case(
        {"_foreach_mul.ScalarList([S0, R])",
         [](auto& t) {
           auto r = at::_foreach_mul(
               {t[0], t[1]}, at::ArrayRef<at::Scalar>({0.5, 3.0}));
           return r[0] + r[1];
         },
         {a, b},
         {{S0}, {R}},
         Placements{S0},
         false},
        mesh);
    // The optimizer's shape: in-place steps on sharded parameters.
    run_case(
        {"_foreach_addcmul_.Scalar on S0",
         [](auto& t) {
           std::vector<at::Tensor> p{t[0].clone()};
           at::_foreach_addcmul_(p, {t[1]}, {t[1]}, 0.25);
           at::_foreach_mul_(p, 2.0);
           return p[0];
         },
         {a, b},
         {{S0}, {S0}},
         Placements{S0},
         false},
        mesh);
    // Gradient clipping's norms: one per element, each by its own rule.
    run_case(
        {"_foreach_norm.Scalar([S0])",
         [](auto& t) { return at::_foreach_norm({t[0]}, 2)[0]; },
         {a},
         {{S0}},
         std::nullopt,
         false},
        mesh);
  }
}

namespace {

// _fused_adam_ through the dispatcher (libtorch 1.13 has no CPU kernel:
// false there).
bool fused_adam_step(std::vector<std::vector<at::Tensor>> lists) {
  auto op = c10::Dispatcher::singleton().findSchema({"aten::_fused_adam_", ""});
  if (!op) {
    return false;
  }
  torch::jit::Stack stack;
  for (auto& l : lists) {
    stack.emplace_back(c10::List<at::Tensor>(l));
  }
  for (double x : {0.01, 0.9, 0.999, 0.01, 1e-8}) {
    stack.emplace_back(x);
  }
  stack.emplace_back(false); // amsgrad
  stack.emplace_back(false); // maximize
  stack.emplace_back(); // grad_scale: None
  stack.emplace_back(); // found_inf: None
  try {
    op->callBoxed(stack);
  } catch (const c10::NotImplementedError&) {
    return false;
  }
  return true;
}

} // namespace

// torch.optim.Adam(fused=True)'s step: each parameter's block updated in
// place with its gradient (a Partial one reduced first) and its states; a
// state placed otherwise than its parameter is updated where it lies.
TEST(ForeachRules, FusedAdamStepsEveryBlockWhereItLies) {
  auto mesh = world_mesh();
  const int64_t n = 2 * world_size();
  auto p = rnd({n, 6}, 120), g = rnd({n, 6}, 121), m = rnd({n, 6}, 122),
       v = rnd({n, 6}, 123).abs();
  auto pp = p.clone(), mm = m.clone(), vv = v.clone();
  if (!fused_adam_step({{pp}, {g}, {mm}, {vv}, {}, {torch::tensor(3.0)}})) {
    GTEST_SKIP() << "no CPU kernel for _fused_adam_ in this libtorch";
  }
  auto dp = distribute_tensor(p, mesh, {S0}),
       dm = distribute_tensor(m, mesh, {R}),
       dv = distribute_tensor(v, mesh, {S0});
  // Each rank's part of the gradient (data parallelism before its all-reduce).
  auto dg = from_local(
      g / static_cast<double>(world_size()), mesh, {P}, false, g.sizes().vec());
  ASSERT_TRUE(fused_adam_step(
      {{dp},
       {dg},
       {dm},
       {dv},
       {},
       {distribute_tensor(torch::tensor(3.0), mesh, {R})}}));
  EXPECT_TRUE(torch::allclose(full_tensor(dp), pp, 1e-5, 1e-6)) << "parameters";
  EXPECT_TRUE(torch::allclose(full_tensor(dm), mm, 1e-5, 1e-6))
      << "exp_avg (Replicate, moved and back)";
  EXPECT_EQ(to_string(*placements_of(dm)), to_string(Placements{R}));
  EXPECT_TRUE(torch::allclose(full_tensor(dv), vv, 1e-5, 1e-6)) << "exp_avg_sq";
}

// GradScaler's unscale step: each block unscaled where it lies, found_inf
// the same on every rank and set when a non-finite value sits in any rank's
// block (here only the last rank's).
TEST(ForeachRules, AmpUnscaleFindsANonFiniteValueInAnyBlock) {
  auto mesh = world_mesh();
  const int64_t n = 2 * world_size();
  auto a = rnd({n, 6}, 130), b = rnd({6, n}, 131);
  auto inv_scale = torch::tensor({0.25});
  try {
    auto plain = a.clone();
    auto found = torch::zeros({1});
    at::_amp_foreach_non_finite_check_and_unscale_({plain}, found, inv_scale);
  } catch (const c10::Error&) {
    GTEST_SKIP()
        << "no CPU kernel for _amp_foreach_non_finite_check_and_unscale_ in this libtorch";
  }
  for (const bool poisoned : {false, true}) {
    auto bb = b.clone();
    if (poisoned) {
      bb.index_put_({1, n - 1}, std::numeric_limits<float>::infinity());
    }
    auto da = distribute_tensor(a, mesh, {S0}),
         db = distribute_tensor(bb, mesh, {S1});
    auto found = torch::zeros({1});
    at::_amp_foreach_non_finite_check_and_unscale_({da, db}, found, inv_scale);
    EXPECT_EQ(found.item<float>(), poisoned ? 1.0f : 0.0f)
        << "found_inf, poisoned=" << poisoned;
    EXPECT_TRUE(torch::allclose(full_tensor(da), a * 0.25))
        << "unscaled in place";
    EXPECT_EQ(to_string(*placements_of(db)), to_string(Placements{S1}));
    auto expected = bb * 0.25;
    EXPECT_TRUE(torch::equal(full_tensor(db).isfinite(), expected.isfinite()));
  }
}
