// Random ops on DTensors: each rank draws the whole tensor's numbers with
// its generator (seeded alike on every rank, as for bernoulli_ in
// NnRules.cpp) and keeps its block, so a sharded draw equals one process's
// draw on the full tensor (what PyTorch's offset-based RNG tracker
// guarantees) and a replicated one is the same on every rank. Fills
// (uniform_, normal_, ...), their functional forms, the *_like factories,
// and dropout.

#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>

#include "FreeDims.h"
#include "Internal.h"

namespace meshguard {
namespace ops {

namespace {

// This rank's block of `full` under `placements`.
at::Tensor block_of(
    at::Tensor full,
    const Placements& placements,
    const DeviceMesh& mesh) {
  for (size_t i = 0; i < placements.size(); ++i) {
    if (auto* s = std::get_if<Shard>(&placements[i])) {
      full = detail::chunk_of(
          full,
          s->dim,
          mesh.size(static_cast<int64_t>(i)),
          mesh.coordinate()[i]);
    }
  }
  return full.contiguous();
}

// Calls `op` with its first argument replaced by `first`; the tensors it
// returns.
std::vector<at::Tensor> call_with_first(
    const c10::OperatorHandle& op,
    const LocalContext& ctx,
    size_t num_args,
    const at::Tensor& first) {
  torch::jit::Stack stack(ctx.args, ctx.args + num_args);
  stack[0] = first;
  op.callBoxed(stack);
  std::vector<at::Tensor> out;
  for (const auto& v : stack) {
    if (v.isTensor()) {
      out.push_back(v.toTensor());
    }
  }
  return out;
}

// Self sharded on any dim (or whole); a Partial self gives a whole output
// where the values do not depend on self's (fills, *_like).
RuleResult
self_shaped(const CallInfo& call, size_t outputs, bool partial_whole) {
  std::vector<FreeDim> dims;
  const Shape& self = call.operands[0].shape;
  for (int64_t d = 0; d < static_cast<int64_t>(self.size()); ++d) {
    std::vector<int64_t> operands(call.operands.size(), kWhole);
    operands[0] = d;
    dims.push_back(FreeDim{operands, std::vector<int64_t>(outputs, d)});
  }
  RuleResult r = free_dim_rule(call, dims, outputs, /*empty_blocks_ok=*/true);
  if (partial_whole) {
    for (const auto& p : call.operands[0].placements) {
      if (is_partial(p)) {
        r.strategies.push_back(Strategy{
            std::vector<Placement>(call.operands.size(), p),
            std::vector<Placement>(outputs, Replicate{})});
      }
    }
  }
  return r;
}

void add_entry(
    RuleTable& table,
    const c10::OperatorHandle& op,
    const std::string& strategies,
    RuleFn rule) {
  table[entry_name(op.operator_name())] =
      RuleEntry{"random", strategies, std::move(rule)};
}

// The overloads of aten::`name` that reach the kernel (any, in-place
// included).
std::vector<c10::OperatorHandle> overloads(const char* name) {
  std::vector<c10::OperatorHandle> out;
  auto it = operators_by_name().find(std::string("aten::") + name);
  if (it == operators_by_name().end()) {
    return out;
  }
  for (const auto& handle : it->second) {
    if (!handle.hasKernelForDispatchKey(
            c10::DispatchKey::CompositeImplicitAutograd)) {
      out.push_back(handle);
    }
  }
  return out;
}

// A fill (in place, or its functional form, or a *_like factory): drawn
// whole on a stand-in of self's global shape, the block kept.
// `only`: that overload alone.
void add_fill(
    RuleTable& table,
    const char* name,
    bool in_place,
    const char* only = nullptr) {
  for (const auto& op : overloads(name)) {
    const auto& schema = op.schema();
    if (only != nullptr && schema.overload_name() != only) {
      continue;
    }
    if (schema.returns().size() != 1 ||
        schema.returns()[0].type()->kind() != c10::TypeKind::TensorType) {
      continue;
    }
    const size_t n = schema.arguments().size();
    add_entry(
        table,
        op,
        "S(d) → S(d), R → R: every rank draws the whole tensor and keeps its block" +
            std::string(in_place ? "" : "; P(op) → R"),
        [op, n, in_place](const CallInfo& call) {
          RuleResult r = self_shaped(call, 1, !in_place);
          const Shape global = call.operands[0].shape;
          r.run_local = [op, n, in_place, global](
                            const std::vector<at::Tensor>& locals,
                            const LocalContext& ctx) {
            const at::Tensor& self = locals[0];
            const Placements& placements = (*ctx.input_placements)[0];
            at::Tensor whole = at::empty(global, self.options());
            at::Tensor drawn = call_with_first(op, ctx, n, whole).at(0);
            at::Tensor block = block_of(drawn, placements, *ctx.mesh);
            if (!in_place) {
              return std::vector<at::Tensor>{block};
            }
            self.copy_(block);
            return std::vector<at::Tensor>{self};
          };
          return r;
        });
  }
}

// native_dropout(input, p, train) -> (output, mask): the mask drawn whole
// (on ones), the block kept; output = input * the block's scaled mask.
void add_dropout(RuleTable& table) {
  for (const auto& op : overloads("native_dropout")) {
    const size_t n = op.schema().arguments().size();
    if (op.schema().returns().size() != 2) {
      continue;
    }
    add_entry(
        table,
        op,
        "S(d) → S(d), S(d); R → R, R: every rank draws the whole mask and keeps its block",
        [op, n](const CallInfo& call) {
          RuleResult r = self_shaped(call, 2, false);
          const Shape global = call.operands[0].shape;
          r.run_local = [op, n, global](
                            const std::vector<at::Tensor>& locals,
                            const LocalContext& ctx) {
            const at::Tensor& input = locals[0];
            const Placements& placements = (*ctx.input_placements)[0];
            auto drawn =
                call_with_first(op, ctx, n, at::ones(global, input.options()));
            at::Tensor scale = block_of(drawn.at(0), placements, *ctx.mesh);
            at::Tensor mask = block_of(drawn.at(1), placements, *ctx.mesh);
            return std::vector<at::Tensor>{input * scale, mask};
          };
          return r;
        });
  }
}

// bernoulli(self, generator): element i is 1 with probability self[i].
// Every rank draws the whole tensor's uniform numbers and keeps its block,
// where its block of probabilities lies: 1 where the number is below it.
void add_bernoulli(RuleTable& table) {
  for (const auto& op : overloads("bernoulli")) {
    const auto& args = op.schema().arguments();
    if (args.size() != 2 || args[1].name() != "generator" ||
        op.schema().returns().size() != 1) {
      continue; // bernoulli.p is a fill (values independent of self)
    }
    add_entry(
        table,
        op,
        "S(d) → S(d), R → R: every rank draws the whole tensor's uniform numbers and keeps its block; a "
        "Partial self is reduced first",
        [](const CallInfo& call) {
          RuleResult r = self_shaped(call, 1, false);
          const Shape global = call.operands[0].shape;
          r.run_local = [global](
                            const std::vector<at::Tensor>& locals,
                            const LocalContext& ctx) {
            const at::Tensor& p = locals[0];
            c10::optional<at::Generator> gen;
            if (!ctx.args[1].isNone()) {
              gen = ctx.args[1].toGenerator();
            }
            at::Tensor drawn =
                at::empty(global, p.options()).uniform_(0, 1, gen);
            at::Tensor block =
                block_of(drawn, (*ctx.input_placements)[0], *ctx.mesh);
            return std::vector<at::Tensor>{block.lt(p).to(p.scalar_type())};
          };
          return r;
        });
  }
}

} // namespace

void add_random_rules(RuleTable& table) {
  for (const char* name :
       {"uniform_",
        "normal_",
        "exponential_",
        "geometric_",
        "log_normal_",
        "cauchy_"}) {
    add_fill(table, name, /*in_place=*/true);
  }
  for (const char* name :
       {"uniform",
        "normal_functional",
        "exponential",
        "geometric",
        "log_normal",
        "cauchy",
        "rand_like",
        "randn_like",
        "randint_like"}) {
    add_fill(table, name, /*in_place=*/false);
  }
  add_fill(table, "bernoulli", /*in_place=*/false, "p");
  add_bernoulli(table);
  add_dropout(table);
  // multinomial draws each row's samples in turn from the generator: the
  // probabilities are gathered and every rank draws them all alike.
  for (const auto& op : overloads("multinomial")) {
    if (op.schema().returns().size() == 1 && !op.schema().is_mutable()) {
      add_entry(
          table,
          op,
          "a sharded or Partial self is gathered: R → R (every rank draws the same samples)",
          [](const CallInfo& call) { return free_dim_rule(call, {}, 1); });
    }
  }
}

} // namespace ops
} // namespace meshguard
