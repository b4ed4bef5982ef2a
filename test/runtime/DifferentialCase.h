#pragma once

// The differential harness of the sharding-rule tests: an op runs on
// DTensors on real Gloo ranks and on the full tensors in this process;
// values, output placements and gradients must agree. MESHGUARD_SWEEP=N
// adds N random row counts per case (uneven and empty shards).

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <optional>

#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>

#include "RankUtil.h"

namespace meshguard {
namespace testing {
namespace differential {

using Fn = std::function<at::Tensor(const std::vector<at::Tensor>&)>;

struct Case {
  std::string what;
  Fn fn;
  std::vector<at::Tensor> fulls; // same on every rank
  std::vector<Placements> placements;
  std::optional<Placements>
      expect; // the output's placements, when the rule fixes them
  bool backward = true;
  // The gradients' placements, per operand (floating operands only), when
  // the rules fix them.
  std::vector<std::optional<Placements>> expect_grads = {};
};

// The loss weights the output by a fixed tensor so that every element's
// gradient differs.
inline at::Tensor weights_like(const at::Tensor& t) {
  return at::arange(t.numel(), at::kFloat)
      .reshape(t.sizes())
      .remainder(7)
      .sub(3);
}

inline void run_case(const Case& c, const DeviceMesh& mesh) {
  SCOPED_TRACE(c.what);
  std::vector<at::Tensor> refs;
  refs.reserve(c.fulls.size());
  for (const auto& f : c.fulls) {
    refs.push_back(
        f.clone().requires_grad_(c.backward && f.is_floating_point()));
  }
  at::Tensor ref_out = c.fn(refs);
  if (c.backward) {
    (ref_out * weights_like(ref_out)).sum().backward();
  }

  std::vector<at::Tensor> ins;
  ins.reserve(c.fulls.size());
  for (size_t i = 0; i < c.fulls.size(); ++i) {
    ins.push_back(
        distribute_tensor(c.fulls[i], mesh, c.placements[i])
            .requires_grad_(c.backward && c.fulls[i].is_floating_point()));
  }
  at::Tensor out = c.fn(ins);
  ASSERT_TRUE(is_dtensor(out));
  if (c.expect) {
    EXPECT_EQ(to_string(*placements_of(out)), to_string(*c.expect));
  }
  EXPECT_EQ(out.sizes(), ref_out.sizes());
  at::Tensor got = full_tensor(out);
  EXPECT_TRUE(at::allclose(got, ref_out.detach(), 1e-4, 1e-5))
      << got << "\nvs\n"
      << ref_out;
  if (!c.backward) {
    return;
  }
  at::Tensor w = distribute_tensor(
      weights_like(ref_out), mesh, Placements(mesh.ndim(), Replicate{}));
  (out * w).sum().backward();
  for (size_t i = 0; i < ins.size(); ++i) {
    if (!c.fulls[i].is_floating_point()) {
      continue; // indices, targets
    }
    ASSERT_TRUE(ins[i].grad().defined()) << "operand " << i;
    ASSERT_TRUE(is_dtensor(ins[i].grad())) << "operand " << i;
    if (i < c.expect_grads.size() && c.expect_grads[i]) {
      EXPECT_EQ(
          to_string(*placements_of(ins[i].grad())),
          to_string(*c.expect_grads[i]))
          << "gradient of operand " << i;
    }
    EXPECT_TRUE(
        at::allclose(full_tensor(ins[i].grad()), refs[i].grad(), 1e-4, 1e-5))
        << "gradient of operand " << i << ":\n"
        << full_tensor(ins[i].grad()) << "\nvs\n"
        << refs[i].grad();
  }
}

inline at::Tensor rnd(std::vector<int64_t> shape, int64_t seed) {
  auto gen = at::make_generator<at::CPUGeneratorImpl>(seed);
  return at::randn(shape, gen, at::kFloat);
}

inline const Placement S0 = Shard{0}, S1 = Shard{1}, S2 = Shard{2},
                       R = Replicate{}, P = Partial{};

// Random indices in [0, high) (at least [0, 1): an index tensor for an empty
// dim still needs a valid range), the same on every rank for one seed.
inline at::Tensor
indices(std::vector<int64_t> shape, int64_t high, int64_t seed) {
  auto gen = at::make_generator<at::CPUGeneratorImpl>(seed);
  return at::randint(0, std::max<int64_t>(high, 1), shape, gen, at::kLong);
}

inline int64_t sweep_count() {
  const char* v = std::getenv("MESHGUARD_SWEEP");
  return v ? std::atoll(v) : 0;
}

// Row counts for the cases: even, uneven, fewer than ranks, and with
// MESHGUARD_SWEEP random ones (0 included).
inline std::vector<int64_t> row_counts() {
  const int64_t w = world_size();
  std::vector<int64_t> rows{2 * w, 2 * w + 1, 1};
  auto gen = at::make_generator<at::CPUGeneratorImpl>(1234);
  for (int64_t i = 0; i < sweep_count(); ++i) {
    rows.push_back(
        at::randint(0, 3 * w + 2, {1}, gen, at::kLong).item<int64_t>());
  }
  return rows;
}

} // namespace differential
} // namespace testing
} // namespace meshguard
