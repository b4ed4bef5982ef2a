// The sharding rules and the propagator's choice, table-driven and in one
// process: each row is an operator, its operands' global shapes and
// placements on a mesh, and the decision PyTorch's DTensor makes for it
// (where every operand is redistributed to, the output's placements and
// global shape). No rank runs: the mesh's groups only give its shape.
// The multi-rank suites check the values; this one checks the decisions
// quickly, for every change to a rule or to the cost model.

#include <gtest/gtest.h>

#include <array>
#include <numeric>
#include <string>
#include <vector>

#include <ATen/ATen.h>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>

#include <meshguard/runtime/DeviceMesh.h>
#include <meshguard/runtime/Placement.h>

#include "ops/Propagator.h"
#include "ops/RuleTable.h"

namespace meshguard {
namespace {

using ops::Shape;

// A process group that only knows its rank and size: enough for a mesh whose
// decisions are asked, never for a collective.
class ShapeOnlyGroup : public c10d::ProcessGroup {
 public:
  ShapeOnlyGroup(int rank, int size) : c10d::ProcessGroup(rank, size) {}
  const std::string getBackendName() const override {
    return "shape-only";
  }
};

DeviceMesh shape_only_mesh(std::vector<int64_t> shape) {
  int64_t n = 1;
  for (int64_t s : shape) {
    n *= s;
  }
  std::vector<int64_t> ranks(n);
  std::iota(ranks.begin(), ranks.end(), 0);
  std::vector<c10::intrusive_ptr<c10d::ProcessGroup>> groups;
  groups.reserve(shape.size());
  for (int64_t s : shape) {
    groups.emplace_back(c10::make_intrusive<ShapeOnlyGroup>(0, s));
  }
  return DeviceMesh("cpu", shape, ranks, groups, /*global_rank=*/0);
}

Placement parse_placement(const std::string& text) {
  if (text == "R") {
    return Replicate{};
  }
  if (text == "P") {
    return Partial{ReduceOp::SUM};
  }
  return Shard{std::stoll(text.substr(2, text.size() - 3))}; // "S(d)"
}

// "S(0),R" -> one placement per mesh dim.
Placements parse_placements(const std::string& text) {
  Placements out;
  size_t begin = 0;
  while (begin <= text.size()) {
    size_t end = text.find(',', begin);
    if (end == std::string::npos) {
      end = text.size();
    }
    out.push_back(parse_placement(text.substr(begin, end - begin)));
    begin = end + 1;
  }
  return out;
}

std::string placements_text(const Placements& ps) {
  std::string out;
  for (const Placement& p : ps) {
    if (!out.empty()) {
      out += ",";
    }
    out += is_replicate(p) ? "R"
        : is_partial(p)    ? "P"
                        : "S(" + std::to_string(std::get<Shard>(p).dim) + ")";
  }
  return out;
}

struct Row {
  std::string op; // "aten::mm.default"
  std::vector<int64_t> mesh;
  std::vector<Shape> shapes; // global, per DTensor operand
  std::vector<std::string> placements; // per operand
  std::vector<c10::IValue> extra; // the arguments after the operands
  std::vector<std::string> targets; // the decision: per operand
  std::string output; // the first output's placements
  Shape output_shape;
};

std::ostream& operator<<(std::ostream& os, const Row& row) {
  os << row.op;
  for (const std::string& p : row.placements) {
    os << " [" << p << "]";
  }
  return os << " on a mesh of " << row.mesh.size() << " dim(s)";
}

class RuleDecision : public ::testing::TestWithParam<Row> {};

TEST_P(RuleDecision, MatchesPyTorch) {
  const Row& row = GetParam();
  DeviceMesh mesh = shape_only_mesh(row.mesh);
  const ops::RuleEntry* entry = ops::find_rule(row.op);
  ASSERT_NE(entry, nullptr) << row.op << " has no rule";

  std::vector<Placements> placements;
  placements.reserve(row.placements.size());
  for (const std::string& p : row.placements) {
    placements.push_back(parse_placements(p));
  }
  // The stack as the kernel sees it: the operands (global-shaped meta
  // tensors stand in for the DTensors), then the other arguments.
  std::vector<c10::IValue> args;
  args.reserve(row.shapes.size() + row.extra.size());
  for (const Shape& s : row.shapes) {
    args.emplace_back(at::empty(s, at::TensorOptions().device(at::kMeta)));
  }
  args.insert(args.end(), row.extra.begin(), row.extra.end());
  ops::CallInfo call;
  call.args = args.data();
  call.num_args = args.size();
  call.mesh_size = mesh.size();
  call.mesh_shape = mesh.shape();
  for (size_t i = 0; i < row.shapes.size(); ++i) {
    call.operands.push_back(ops::Operand{i, -1, row.shapes[i], placements[i]});
  }

  auto decision = ops::decide(row.op, *entry, call, mesh, ops::Fixed{});
  ASSERT_EQ(decision->input_targets.size(), row.targets.size());
  for (size_t i = 0; i < row.targets.size(); ++i) {
    EXPECT_EQ(placements_text(decision->input_targets[i]), row.targets[i])
        << "operand " << i;
  }
  ASSERT_FALSE(decision->output_placements.empty());
  EXPECT_EQ(placements_text(decision->output_placements[0]), row.output);
  EXPECT_EQ(decision->output_shapes[0], row.output_shape);
}

const Shape k44{4, 4}, k46{4, 6}, k68{6, 8}, k48{4, 8};

// Each row: what torch.distributed.tensor decides for the same call
// (PyTorch 2.13; the conformance harness checks the values on real ranks).
const std::vector<Row> kRows = {
    // Pointwise: the output follows its operands; Replicate is cut locally.
    {"aten::add.Tensor",
     {2},
     {k44, k44},
     {"S(0)", "S(0)"},
     {1},
     {"S(0)", "S(0)"},
     "S(0)",
     k44},
    {"aten::add.Tensor",
     {2},
     {k44, k44},
     {"S(0)", "R"},
     {1},
     {"S(0)", "S(0)"},
     "S(0)",
     k44},
    {"aten::add.Tensor",
     {2},
     {k44, k44},
     {"P", "P"},
     {1},
     {"P", "P"},
     "P",
     k44},
    {"aten::mul.Tensor", {2}, {k44, k44}, {"P", "R"}, {}, {"P", "R"}, "P", k44},
    {"aten::relu.default", {2}, {k44}, {"S(1)"}, {}, {"S(1)"}, "S(1)", k44},
    // Matrix products: contracting a sharded dim leaves a Partial sum.
    {"aten::mm.default",
     {2},
     {k46, k68},
     {"S(0)", "R"},
     {},
     {"S(0)", "R"},
     "S(0)",
     k48},
    {"aten::mm.default",
     {2},
     {k46, k68},
     {"R", "S(1)"},
     {},
     {"R", "S(1)"},
     "S(1)",
     k48},
    {"aten::mm.default",
     {2},
     {k46, k68},
     {"S(1)", "S(0)"},
     {},
     {"S(1)", "S(0)"},
     "P",
     k48},
    {"aten::mm.default",
     {2, 2},
     {k46, k68},
     {"S(0),S(1)", "R,S(0)"},
     {},
     {"S(0),S(1)", "R,S(0)"},
     "S(0),P",
     k48},
    // Reductions: over a sharded dim a Partial, elsewhere the shard stays.
    {"aten::sum.default", {2}, {k44}, {"S(0)"}, {}, {"S(0)"}, "P", {}},
    {"aten::sum.dim_IntList",
     {2},
     {k46},
     {"S(0)"},
     {c10::List<int64_t>({1}), false},
     {"S(0)"},
     "S(0)",
     {4}},
    {"aten::sum.dim_IntList",
     {2},
     {k46},
     {"S(1)"},
     {c10::List<int64_t>({1}), false},
     {"S(1)"},
     "P",
     {4}},
    // Views: the shard moves with its dim.
    {"aten::t.default", {2}, {k46}, {"S(0)"}, {}, {"S(0)"}, "S(1)", {6, 4}},
    {"aten::view.default",
     {2},
     {k46},
     {"S(0)"},
     {c10::List<int64_t>({24})},
     {"S(0)"},
     "S(0)",
     {24}},
};

INSTANTIATE_TEST_SUITE_P(Table, RuleDecision, ::testing::ValuesIn(kRows));

TEST(RuleTable, EveryEntryHasARuleOrReplicates) {
  for (const auto& [name, entry] : ops::rule_table()) {
    EXPECT_TRUE(entry.rule || entry.replicates_operands || entry.run_whole)
        << name;
    EXPECT_FALSE(entry.family.empty()) << name;
  }
}

// In-place, out= and _foreach_ forms derive from the functional rule
// (ops/Variants.cpp, ops/Foreach.cpp), read from the schemas.
TEST(RuleTable, DerivedFormsNameTheirFunctionalRule) {
  for (const auto& [name, entry] : ops::rule_table()) {
    if (!entry.derived_from.empty()) {
      EXPECT_NE(ops::find_rule(entry.derived_from), nullptr) << name;
    }
  }
  struct Row {
    const char* op;
    const char* from;
    size_t out_args;
  };
  for (const Row& row :
       {Row{"aten::add.out", "aten::add.Tensor", 1},
        Row{"aten::max.dim_max", "aten::max.dim", 2},
        Row{"aten::addmm_.default", "aten::addmm.default", 0},
        Row{"aten::_foreach_add.List", "aten::add.Tensor", 0},
        Row{"aten::_foreach_mul_.Scalar", "aten::mul_.Scalar", 0},
        Row{"aten::_foreach_norm.Scalar",
            "aten::linalg_vector_norm.default",
            0}}) {
    const ops::RuleEntry* entry = ops::find_rule(row.op);
    ASSERT_NE(entry, nullptr) << row.op;
    EXPECT_EQ(entry->derived_from, row.from) << row.op;
    EXPECT_EQ(entry->out_args, row.out_args) << row.op;
  }
  // A view's in-place form changes metadata, not values: Variants.cpp
  // derives none; squeeze_ has its own entry, which runs the functional
  // squeeze and gives self its result.
  EXPECT_EQ(ops::find_rule("aten::transpose_.default"), nullptr);
  const ops::RuleEntry* squeeze = ops::find_rule("aten::squeeze_.dim");
  ASSERT_NE(squeeze, nullptr);
  EXPECT_EQ(squeeze->derived_from, "aten::squeeze.dim");
  EXPECT_TRUE(static_cast<bool>(squeeze->run_whole));
}

// An out= form writes its out tensor where it lies: the operands move.
TEST(RuleTable, OutTensorPlacementIsKept) {
  const DeviceMesh mesh = shape_only_mesh({4});
  const ops::RuleEntry* entry = ops::find_rule("aten::add.out");
  ASSERT_NE(entry, nullptr);
  std::vector<c10::IValue> args{
      at::empty({4, 6}, at::TensorOptions().device(at::kMeta)),
      at::empty({4, 6}, at::TensorOptions().device(at::kMeta)),
      c10::Scalar(1)};
  const Shape shape{4, 6};
  const Placements s0{Shard{0}}, r{Replicate{}};
  ops::CallInfo call;
  call.args = args.data();
  call.num_args = args.size();
  call.mesh_size = mesh.size();
  call.mesh_shape = mesh.shape();
  call.operands.push_back(ops::Operand{0, -1, shape, s0});
  call.operands.push_back(ops::Operand{1, -1, shape, s0});
  const std::array<const Placements*, 1> out = {&r};
  auto decision =
      ops::decide("aten::add.out", *entry, call, mesh, ops::Fixed{-1, out});
  EXPECT_EQ(placements_text(decision->input_targets[0]), "R");
  EXPECT_EQ(placements_text(decision->output_placements[0]), "R");
  const std::array<const Placements*, 1> sharded = {&s0};
  decision =
      ops::decide("aten::add.out", *entry, call, mesh, ops::Fixed{-1, sharded});
  EXPECT_EQ(placements_text(decision->input_targets[0]), "S(0)");
}

TEST(RuleTable, UnknownOperatorHasNoRule) {
  EXPECT_EQ(ops::find_rule("aten::no_such_op.default"), nullptr);
}

} // namespace
} // namespace meshguard
