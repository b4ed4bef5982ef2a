// Users' own ops (include/meshguard/runtime/UserOps.h): a TORCH_LIBRARY op
// of this test refused on shards, then run by the rule register_sharding
// gives it; local_map around local computations, through backward. Run
// under meshguard-launch.

#include <torch/library.h>
#include <torch/torch.h>

#include "DifferentialCase.h"

using namespace meshguard;
using namespace meshguard::testing;
using namespace meshguard::testing::differential;

namespace {

at::Tensor
scaled_add_kernel(const at::Tensor& a, const at::Tensor& b, double s) {
  return a + b * s;
}

at::Tensor row_norms_kernel(const at::Tensor& a) {
  return a.pow(2).sum(1).sqrt();
}

TORCH_LIBRARY(mgtest, m) {
  m.def("scaled_add(Tensor a, Tensor b, float s) -> Tensor");
  m.def("row_norms(Tensor a) -> Tensor");
}

TORCH_LIBRARY_IMPL(mgtest, CPU, m) {
  m.impl("scaled_add", &scaled_add_kernel);
  m.impl("row_norms", &row_norms_kernel);
}

at::Tensor scaled_add(const at::Tensor& a, const at::Tensor& b, double s) {
  static auto op =
      c10::Dispatcher::singleton()
          .findSchemaOrThrow("mgtest::scaled_add", "")
          .typed<at::Tensor(const at::Tensor&, const at::Tensor&, double)>();
  return op.call(a, b, s);
}

at::Tensor row_norms(const at::Tensor& a) {
  static auto op = c10::Dispatcher::singleton()
                       .findSchemaOrThrow("mgtest::row_norms", "")
                       .typed<at::Tensor(const at::Tensor&)>();
  return op.call(a);
}

} // namespace

TEST(UserOps, RegisterShardingRunsACustomOp) {
  auto mesh = world_mesh();
  const at::Tensor x = rnd({4, 6}, 111), y = rnd({4, 6}, 112);
  at::Tensor a = distribute_tensor(x, mesh, {S0}),
             b = distribute_tensor(y, mesh, {S0});
  // No rule yet: refused, naming the op.
  MG_EXPECT_THROW_WITH(
      scaled_add(a, b, 0.5),
      c10::Error,
      "mgtest::scaled_add.default: no sharding rule");
  // Elementwise: sharded alike on either dim.
  register_sharding(
      "mgtest::scaled_add",
      {ShardingOption{{S0, S0}, {S0}}, ShardingOption{{S1, S1}, {S1}}});
  at::Tensor out = scaled_add(a, b, 0.5);
  EXPECT_EQ(to_string(*placements_of(out)), to_string(Placements{S0}));
  EXPECT_TRUE(at::allclose(full_tensor(out), x + y * 0.5));
  // A Replicate operand is cut to the shard locally (no collective).
  at::Tensor r = distribute_tensor(y, mesh, {R});
  EXPECT_TRUE(at::allclose(full_tensor(scaled_add(a, r, 2.0)), x + y * 2.0));
  // A rule that reads the call: rows sharded stay sharded, a column shard
  // gives each rank part of every row's sum of squares (not expressible):
  // only rows.
  register_sharding("mgtest::row_norms", [](const ShardingCall& call) {
    EXPECT_EQ(call.input_shapes.size(), 1u);
    return std::vector<ShardingOption>{{{S0}, {S0}}};
  });
  at::Tensor cols = distribute_tensor(x, mesh, {S1});
  at::Tensor norms = row_norms(cols); // gathered to rows first, by cost
  EXPECT_TRUE(at::allclose(full_tensor(norms), row_norms_kernel(x)));
  // A malformed option is a clear error naming the op.
  register_sharding(
      "mgtest::row_norms", std::vector<ShardingOption>{{{S0, S0}, {S0}}});
  MG_EXPECT_THROW_WITH(
      row_norms(cols),
      c10::Error,
      "mgtest::row_norms.default: a sharding option names 2 input");
  MG_EXPECT_THROW_WITH(
      register_sharding("mgtest::no_such_op", std::vector<ShardingOption>{}),
      c10::Error,
      "no operator 'mgtest::no_such_op' is registered");
}

TEST(UserOps, LocalMapThroughBackward) {
  auto mesh = world_mesh();
  // Rows of 2 per rank: even shards (local_map's results assume them).
  const at::Tensor x = rnd({2 * world_size(), 3}, 113),
                   y = rnd({2 * world_size(), 3}, 114);
  LocalFn fn = [](const std::vector<at::Tensor>& t) {
    return std::vector<at::Tensor>{t[0] * 2 + t[1].exp()};
  };
  LocalFn on_rows = local_map(
      fn,
      {{S0}},
      {Placements{S0}, Placements{S0}},
      mesh,
      /*redistribute_inputs=*/true);
  at::Tensor a = distribute_tensor(x, mesh, {S0}).requires_grad_(true);
  at::Tensor b =
      distribute_tensor(y, mesh, {S1}).requires_grad_(true); // moved to rows
  at::Tensor out = on_rows({a, b})[0];
  EXPECT_EQ(to_string(*placements_of(out)), to_string(Placements{S0}));
  EXPECT_TRUE(at::allclose(full_tensor(out), x * 2 + y.exp()));
  out.sum().backward();
  EXPECT_TRUE(at::allclose(full_tensor(a.grad()), at::full_like(x, 2)));
  EXPECT_TRUE(at::allclose(full_tensor(b.grad()), y.exp()));
  // Plain tensors: the function as it is.
  EXPECT_TRUE(at::allclose(on_rows({x, y})[0], x * 2 + y.exp()));
  // Without redistribute_inputs a placement that differs is an error.
  LocalFn strict =
      local_map(fn, {{S0}}, {Placements{S0}, Placements{S0}}, mesh);
  MG_EXPECT_THROW_WITH(
      strict({a, b}), c10::Error, "local_map: input 1 has placements");
}
