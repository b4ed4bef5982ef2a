// Every dtype PyTorch's DTensor accepts through every collective meshguard
// issues on Gloo: distribute (scatter of blocks), full_tensor and
// redistribute S->R (all_gather), S(0)->S(1) (all_to_all), P->R
// (all_reduce), P->S (reduce_scatter), and the mesh-inferred broadcast_,
// all_reduce_, all_gather and reduce_scatter. Gloo has no bool; bool travels
// as bytes (lib/runtime/compat/TorchCompat.cpp). Run under meshguard-launch.

#include <torch/torch.h>

#include "RankUtil.h"

using namespace meshguard;
using namespace meshguard::testing;

namespace {

const std::vector<at::ScalarType> kDtypes = {
    at::kFloat,
    at::kDouble,
    at::kHalf,
    at::kBFloat16,
    at::kByte,
    at::kChar,
    at::kShort,
    at::kInt,
    at::kLong,
    at::kBool,
    at::kComplexFloat,
    at::kComplexDouble};

// A value every rank agrees on, of `dtype`, with distinct entries where the
// dtype allows.
at::Tensor sample(at::ScalarType dtype, std::vector<int64_t> shape) {
  at::Tensor t =
      at::arange(c10::multiply_integers(shape), at::kLong).reshape(shape);
  if (dtype == at::kBool) {
    return t.remainder(3).eq(0);
  }
  return t.remainder(7).to(dtype);
}

// A per-rank contribution whose sum is exact in every dtype (0 or 1 each).
at::Tensor contribution(at::ScalarType dtype, std::vector<int64_t> shape) {
  at::Tensor t =
      at::arange(c10::multiply_integers(shape), at::kLong).reshape(shape);
  return t.add(rank()).remainder(2).to(dtype);
}

at::Tensor sum_over_ranks(at::ScalarType dtype, std::vector<int64_t> shape) {
  if (dtype == at::kBool) { // a sum of bools is their "or"
    at::Tensor any = at::zeros(shape, at::kBool);
    for (int64_t r = 0; r < world_size(); ++r) {
      any = any.logical_or(at::arange(c10::multiply_integers(shape), at::kLong)
                               .reshape(shape)
                               .add(r)
                               .remainder(2)
                               .eq(1));
    }
    return any;
  }
  at::Tensor total = at::zeros(shape, at::kLong);
  for (int64_t r = 0; r < world_size(); ++r) {
    total += at::arange(c10::multiply_integers(shape), at::kLong)
                 .reshape(shape)
                 .add(r)
                 .remainder(2);
  }
  return total.to(dtype);
}

} // namespace

TEST(Dtypes, EveryCollectiveOnEveryDtype) {
  auto mesh = world_mesh();
  const std::vector<int64_t> shape{2 * world_size() + 1, 3}; // uneven rows
  for (const at::ScalarType dtype : kDtypes) {
    SCOPED_TRACE(c10::toString(dtype));
    try {
      const at::Tensor full = sample(dtype, shape);
      // distribute, full_tensor, S -> R, S(0) -> S(1) and back.
      at::Tensor rows = distribute_tensor(full, mesh, {Shard{0}});
      EXPECT_EQ(to_local(rows).scalar_type(), dtype);
      EXPECT_TRUE(at::equal(full_tensor(rows), full));
      EXPECT_TRUE(at::equal(to_local(redistribute(rows, {Replicate{}})), full));
      at::Tensor cols = redistribute(rows, {Shard{1}});
      EXPECT_TRUE(at::equal(full_tensor(cols), full));
      EXPECT_TRUE(at::equal(full_tensor(redistribute(cols, {Shard{0}})), full));
      // Partial: P -> R (all_reduce), P -> S (reduce_scatter).
      const at::Tensor expected = sum_over_ranks(dtype, shape);
      at::Tensor partial =
          from_local(contribution(dtype, shape), mesh, {Partial{}});
      EXPECT_TRUE(
          at::equal(to_local(redistribute(partial, {Replicate{}})), expected));
      EXPECT_TRUE(
          at::equal(full_tensor(redistribute(partial, {Shard{0}})), expected));
      // The mesh-inferred collectives.
      at::Tensor replica = distribute_tensor(full, mesh, {Replicate{}});
      dist::broadcast_({replica}, 0);
      EXPECT_TRUE(at::equal(to_local(replica), full));
      at::Tensor summed =
          from_local(contribution(dtype, shape), mesh, {Partial{}});
      dist::all_reduce_({summed}, ReduceOp::SUM);
      EXPECT_TRUE(at::equal(to_local(summed), expected));
      EXPECT_TRUE(at::equal(to_local(dist::all_gather({rows})[0]), full));
      at::Tensor scattered = dist::reduce_scatter(
          {from_local(contribution(dtype, shape), mesh, {Partial{}})},
          ReduceOp::SUM,
          0)[0];
      EXPECT_TRUE(at::equal(full_tensor(scattered), expected));
    } catch (const c10::Error& e) {
      ADD_FAILURE() << c10::toString(dtype) << ": "
                    << e.what_without_backtrace();
    }
  }
}
