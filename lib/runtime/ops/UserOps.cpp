// register_sharding and local_map (include/meshguard/runtime/UserOps.h):
// a user's rule becomes a RuleEntry of the kernel's table, consulted before
// the built-in families; local_map is to_local / from_local around a
// function, both differentiable.

#include <meshguard/runtime/UserOps.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <sstream>
#include <unordered_map>

#include <ATen/core/dispatch/Dispatcher.h>

#include <meshguard/runtime/DTensor.h>

#include "RuleTable.h"

namespace meshguard {

namespace ops {
namespace {

struct UserRules {
  std::mutex mu;
  std::atomic<uint64_t> generation{0};
  // Every entry ever registered, never freed: the kernel keeps pointers to
  // them, and its decision cache is keyed by them (a new registration is a
  // new address, so no decision of the rule it replaces is reused).
  std::vector<std::unique_ptr<RuleEntry>> all;
  std::unordered_map<std::string, const RuleEntry*> latest;
};

UserRules& user_rules() {
  static auto* rules = new UserRules();
  return *rules;
}

std::string placements_text(const Placements& p) {
  return to_string(p);
}

RuleFn to_rule(const std::string& name, ShardingRuleFn user, size_t outputs) {
  return [name, user = std::move(user), outputs](const CallInfo& call) {
    ShardingCall seen;
    for (const Operand& o : call.operands) {
      seen.input_shapes.push_back(o.shape);
    }
    seen.args.assign(call.args, call.args + call.num_args);
    RuleResult r;
    r.shapes_from_locals = true;
    r.output_shapes.assign(outputs, Shape{});
    for (const ShardingOption& option : user(seen)) {
      TORCH_CHECK(
          option.inputs.size() == call.operands.size() &&
              option.outputs.size() == outputs,
          name,
          ": a sharding option names ",
          option.inputs.size(),
          " input and ",
          option.outputs.size(),
          " output placements; the call has ",
          call.operands.size(),
          " DTensor inputs and the op ",
          outputs,
          " tensor outputs (option inputs ",
          placements_text(option.inputs),
          ", outputs ",
          placements_text(option.outputs),
          ")");
      for (size_t o = 0; o < outputs; ++o) {
        const auto* shard = std::get_if<Shard>(&option.outputs[o]);
        if (shard == nullptr) {
          continue;
        }
        bool found = false;
        for (size_t i = 0; i < option.inputs.size() && !found; ++i) {
          if (const auto* in = std::get_if<Shard>(&option.inputs[i])) {
            r.global_dims.push_back(GlobalDim{o, shard->dim, i, in->dim});
            found = true;
          }
        }
        TORCH_CHECK(
            found,
            name,
            ": a sharding option gives output ",
            o,
            " Shard(dim=",
            shard->dim,
            ") but shards no input; an output is sharded like some input (option inputs ",
            placements_text(option.inputs),
            ")");
      }
      r.strategies.push_back(Strategy{option.inputs, option.outputs});
    }
    r.strategies.push_back(Strategy{
        std::vector<Placement>(call.operands.size(), Replicate{}),
        std::vector<Placement>(outputs, Replicate{})});
    return r;
  };
}

} // namespace

uint64_t user_rules_generation() {
  return user_rules().generation.load(std::memory_order_acquire);
}

const RuleEntry* find_user_rule(const std::string& op_name) {
  auto& rules = user_rules();
  std::lock_guard<std::mutex> lock(rules.mu);
  auto it = rules.latest.find(op_name);
  return it == rules.latest.end() ? nullptr : it->second;
}

} // namespace ops

void register_sharding(const std::string& op, ShardingRuleFn rule) {
  TORCH_CHECK(rule, "register_sharding(", op, "): the rule is empty");
  const auto sep = op.find("::");
  TORCH_CHECK(
      sep != std::string::npos,
      "register_sharding: '",
      op,
      "' is not an operator name (namespace::name or namespace::name.overload)");
  const auto dot = op.find('.', sep);
  const std::string name = op.substr(0, dot);
  const std::string overload =
      dot == std::string::npos ? "" : op.substr(dot + 1);
  auto handle = c10::Dispatcher::singleton().findOp(
      {name, overload == "default" ? "" : overload});
  TORCH_CHECK(
      handle.has_value() && handle->hasSchema(),
      "register_sharding: no operator '",
      op,
      "' is registered (register it with TORCH_LIBRARY first)");
  size_t outputs = 0;
  for (const auto& r : handle->schema().returns()) {
    outputs += r.type()->kind() == c10::TypeKind::TensorType;
  }
  const std::string key =
      name + "." + (overload.empty() ? std::string("default") : overload);
  ops::RuleEntry entry;
  entry.family = "user";
  entry.strategies = "registered with register_sharding";
  entry.rule = ops::to_rule(key, std::move(rule), outputs);
  auto& rules = ops::user_rules();
  std::lock_guard<std::mutex> lock(rules.mu);
  rules.all.push_back(std::make_unique<ops::RuleEntry>(std::move(entry)));
  rules.latest[key] = rules.all.back().get();
  rules.generation.fetch_add(1, std::memory_order_release);
}

void register_sharding(
    const std::string& op,
    std::vector<ShardingOption> options) {
  register_sharding(op, [options = std::move(options)](const ShardingCall&) {
    return options;
  });
}

LocalFn local_map(
    LocalFn fn,
    std::vector<Placements> out_placements,
    std::vector<std::optional<Placements>> in_placements,
    DeviceMesh mesh,
    bool redistribute_inputs) {
  return [fn = std::move(fn),
          out_placements = std::move(out_placements),
          in_placements = std::move(in_placements),
          mesh = std::move(mesh),
          redistribute_inputs](const std::vector<at::Tensor>& inputs) {
    bool any_dtensor = false;
    std::vector<at::Tensor> locals;
    for (size_t i = 0; i < inputs.size(); ++i) {
      const at::Tensor& t = inputs[i];
      if (!t.defined() || !is_dtensor(t)) {
        locals.push_back(t);
        continue;
      }
      any_dtensor = true;
      TORCH_CHECK(
          *mesh_of(t) == mesh,
          "local_map: input ",
          i,
          " lives on ",
          mesh_of(t)->to_string(),
          ", the function's mesh is ",
          mesh.to_string());
      at::Tensor input = t;
      if (i < in_placements.size() && in_placements[i] &&
          !(*placements_of(t) == *in_placements[i])) {
        TORCH_CHECK(
            redistribute_inputs,
            "local_map: input ",
            i,
            " has placements ",
            to_string(*placements_of(t)),
            " but the function takes ",
            to_string(*in_placements[i]),
            "; redistribute it first, or pass redistribute_inputs=true");
        input = redistribute(t, *in_placements[i]);
      }
      locals.push_back(to_local(input));
    }
    std::vector<at::Tensor> outs = fn(locals);
    if (!any_dtensor) {
      return outs;
    }
    TORCH_CHECK(
        outs.size() == out_placements.size(),
        "local_map: the function returned ",
        outs.size(),
        " tensors, out_placements names ",
        out_placements.size());
    for (size_t o = 0; o < outs.size(); ++o) {
      if (outs[o].defined()) {
        outs[o] = from_local(outs[o], mesh, out_placements[o]);
      }
    }
    return outs;
  };
}

} // namespace meshguard
