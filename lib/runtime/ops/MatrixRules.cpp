// Matrix products: a row-sharded left operand gives row shards, a
// column-sharded right operand column shards, and sharding the contracted
// dim on both sides gives partial sums. The same with a leading batch dim.

#include "RuleTable.h"

namespace meshguard {
namespace ops {

namespace {

using namespace shorthand;

// mat1 [.., m, k] x mat2 [.., k, n], `batch` leading dims (0 or 1).
std::vector<Strategy> product_strategies(int64_t batch) {
  std::vector<Strategy> s;
  if (batch) {
    s.push_back({{S(0), S(0)}, {S(0)}});
  }
  s.push_back({{S(batch), R}, {S(batch)}});
  s.push_back({{R, S(batch + 1)}, {S(batch + 1)}});
  s.push_back({{S(batch + 1), S(batch)}, {P}});
  s.push_back({{R, R}, {R}});
  // Linear in each factor.
  s.push_back({{P, R}, {P}});
  s.push_back({{R, P}, {P}});
  return s;
}

Shape product_shape(const Shape& a, const Shape& b) {
  Shape out(a.begin(), a.end() - 1);
  out.push_back(b.back());
  return out;
}

RuleResult product_rule(const CallInfo& call, int64_t batch) {
  TORCH_CHECK(
      call.operands.size() == 2, "matrix rule: expected two DTensor operands");
  RuleResult r;
  r.strategies = product_strategies(batch);
  r.output_shapes = {
      product_shape(call.operands[0].shape, call.operands[1].shape)};
  return r;
}

// addmm(self, mat1, mat2) / baddbmm: the added `self` is broadcast to the
// product, so it follows the output's placement (aligned), and must be
// Partial for a Partial output.
RuleResult add_product_rule(const CallInfo& call, int64_t batch) {
  TORCH_CHECK(
      call.operands.size() == 3,
      "matrix rule: expected three DTensor operands (self, mat1, mat2)");
  RuleResult r;
  const Shape out =
      product_shape(call.operands[1].shape, call.operands[2].shape);
  const Shape& self = call.operands[0].shape;
  for (const auto& s : product_strategies(batch)) {
    Strategy t;
    const Placement& o = s.outputs[0];
    if (auto* sh = std::get_if<Shard>(&o)) {
      t.inputs.push_back(aligned_shard(self, out, sh->dim));
    } else {
      t.inputs.push_back(o);
    }
    t.inputs.insert(t.inputs.end(), s.inputs.begin(), s.inputs.end());
    t.outputs = s.outputs;
    r.strategies.push_back(std::move(t));
  }
  r.output_shapes = {out};
  return r;
}

} // namespace

void add_matrix_rules(RuleTable& table) {
  const std::string mm =
      "S(0)×R → S(0); R×S(1) → S(1); S(1)×S(0) → P(sum); R×R → R; P(sum)×R, R×P(sum) → P(sum)";
  const std::string bmm =
      "S(0)×S(0) → S(0); S(1)×R → S(1); R×S(2) → S(2); S(2)×S(1) → P(sum); R×R → R; P(sum)×R, R×P(sum) → P(sum)";
  table["aten::mm.default"] = {
      "matrix", mm, [](const CallInfo& c) { return product_rule(c, 0); }};
  table["aten::bmm.default"] = {
      "matrix", bmm, [](const CallInfo& c) { return product_rule(c, 1); }};
  table["aten::addmm.default"] = {
      "matrix",
      "self follows the output (aligned, broadcast dims R; P(sum) for P(sum)), mat1×mat2 as mm",
      [](const CallInfo& c) { return add_product_rule(c, 0); }};
  table["aten::baddbmm.default"] = {
      "matrix",
      "self follows the output (aligned, broadcast dims R; P(sum) for P(sum)), batch1×batch2 as bmm",
      [](const CallInfo& c) { return add_product_rule(c, 1); }};
}

} // namespace ops
} // namespace meshguard
