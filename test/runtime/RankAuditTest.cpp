// Rank tests of the audit mode (ops/Audit.h, docs/runtime/audit.md): their
// drivers in MultiRankTest.cpp set MESHGUARD_AUDIT=1. A right rule passes
// the audit; a rule sabotaged here (mm's Partial result claimed Replicate,
// the bug that inflated a loss in torchtitan) is named with its placements,
// where without the audit the wrong number would go on silently.

#include <gmock/gmock.h>

#include <meshguard/runtime/DTensor.h>

#include "RankUtil.h"
#include "ops/Audit.h"
#include "ops/RuleTable.h"

using namespace meshguard;
using namespace meshguard::testing;
using ::testing::HasSubstr;

namespace {

// mm of a column-sharded by a row-sharded matrix: each rank's product is a
// partial sum of the result. Each test its own size `k` (rows per rank): the
// propagator remembers its decision per op, shapes and placements, so a
// sabotaged rule is only asked for shapes no test has used before.
struct ShardedProduct {
  at::Tensor a, b, expected;
};

ShardedProduct sharded_product(const DeviceMesh& mesh, int64_t k) {
  const auto n = k * world_size();
  at::Tensor a = full_of({n, n}, 1), b = full_of({n, n}, 2);
  return {
      distribute_tensor(a, mesh, {Shard{1}}),
      distribute_tensor(b, mesh, {Shard{0}}),
      a.mm(b)};
}

// Replaces mm's rule by one that calls every Partial output Replicate, for
// the test's lifetime.
class SabotagedMm {
 public:
  // The table is const to the runtime; changing it is this test's purpose.
  // NOLINTBEGIN(cppcoreguidelines-pro-type-const-cast)
  SabotagedMm()
      : entry_(const_cast<ops::RuleTable&>(ops::rule_table())
                   .at("aten::mm.default")),
        right_(entry_.rule) {
    entry_.rule = [right = right_](const ops::CallInfo& call) {
      ops::RuleResult r = right(call);
      for (auto& s : r.strategies) {
        for (auto& out : s.outputs) {
          if (is_partial(out)) {
            out = Replicate{};
          }
        }
      }
      return r;
    };
  }
  // NOLINTEND(cppcoreguidelines-pro-type-const-cast)
  ~SabotagedMm() {
    entry_.rule = right_;
  }

 private:
  ops::RuleEntry& entry_;
  ops::RuleFn right_;
};

} // namespace

TEST(Audit, RightRulesPass) {
  ASSERT_TRUE(ops::audit_on()) << "run with MESHGUARD_AUDIT=1";
  auto mesh = world_mesh();
  ShardedProduct p = sharded_product(mesh, 2);
  const int64_t before = ops::audited_ops();
  at::Tensor c = p.a.mm(p.b); // Partial: audited
  EXPECT_TRUE(is_partial((*placements_of(c))[0]));
  at::Tensor total = (c * 2).sum(); // Partial operands again
  EXPECT_TRUE(at::allclose(full_tensor(c), p.expected));
  EXPECT_TRUE(at::allclose(full_tensor(total), (p.expected * 2).sum()));
  EXPECT_EQ(ops::audited_ops(), before + 3); // mm, mul, sum
  // Backward's ops on sharded gradients are audited too.
  at::Tensor a = p.a.detach().requires_grad_();
  at::Tensor loss = (a.mm(p.b) * 2).sum();
  const int64_t forward = ops::audited_ops();
  loss.backward();
  EXPECT_GT(ops::audited_ops(), forward);
  EXPECT_TRUE(at::allclose(
      full_tensor(a.grad()),
      2 * at::ones_like(p.expected).mm(full_tensor(p.b).t())));
}

TEST(Audit, WrongRuleIsNamed) {
  ASSERT_TRUE(ops::audit_on()) << "run with MESHGUARD_AUDIT=1";
  auto mesh = world_mesh();
  ShardedProduct p = sharded_product(mesh, 3);
  SabotagedMm sabotage;
  try {
    at::Tensor c = p.a.mm(p.b);
    FAIL() << "expected the audit to find the wrong rule";
  } catch (const c10::Error& e) {
    const std::string what = e.what();
    if (rank() == 0) {
      std::printf("%s\n", what.substr(0, what.find('\n')).c_str());
    }
    EXPECT_THAT(
        what,
        HasSubstr("meshguard audit: aten::mm.default on operands with "
                  "placements [Shard(dim=1)], [Shard(dim=0)] gave "
                  "[Replicate()] whose value differs from aten::mm.default "
                  "on the full tensors (output 0: max abs difference"));
    EXPECT_THAT(what, HasSubstr("Its sharding rule is wrong"));
  }
}

// The same sabotage with the audit off for mm (MESHGUARD_AUDIT_OPS names
// another op): the wrong number goes through, which is what the audit is
// for.
TEST(Audit, WithoutItTheWrongRuleGoesThrough) {
  auto mesh = world_mesh();
  ShardedProduct p = sharded_product(mesh, 4);
  SabotagedMm sabotage;
  at::Tensor c = p.a.mm(p.b);
  EXPECT_FALSE(at::allclose(full_tensor(c), p.expected));
}

// MESHGUARD_AUDIT_EVERY=2: every other op on sharded operands is compared.
TEST(Audit, EveryOtherOp) {
  ASSERT_TRUE(ops::audit_on()) << "run with MESHGUARD_AUDIT=1";
  auto mesh = world_mesh();
  ShardedProduct p = sharded_product(mesh, 5);
  const int64_t before = ops::audited_ops();
  for (int i = 0; i < 4; ++i) {
    at::Tensor c = p.a.mm(p.b);
  }
  EXPECT_EQ(ops::audited_ops(), before + 2);
}

// A sampling period that is not a positive number is an error at the first
// op the audit would compare, not a silent "audit nothing".
TEST(Audit, BadEveryIsAnError) {
  ASSERT_TRUE(ops::audit_on()) << "run with MESHGUARD_AUDIT=1";
  auto mesh = world_mesh();
  ShardedProduct p = sharded_product(mesh, 6);
  try {
    at::Tensor c = p.a.mm(p.b);
    FAIL() << "expected an error for MESHGUARD_AUDIT_EVERY";
  } catch (const c10::Error& e) {
    EXPECT_THAT(
        e.what(),
        HasSubstr("MESHGUARD_AUDIT_EVERY='0': expected a positive number of "
                  "ops (1 audits every op)"));
  }
}
