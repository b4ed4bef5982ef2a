// Batch normalization (FreeDims.h). Training normalizes each channel over
// the batch and spatial dims, so only the channel dim is free: the input
// (and grad_output) Shard(1), every per-channel tensor (weight, bias,
// running statistics, saved mean and invstd) Shard(0), as in PyTorch. In
// evaluation the statistics are constants: every dim but the channel dim is
// free, the per-channel tensors whole (cheaper than PyTorch, which offers
// the channel dim only). The running statistics a training call updates in
// place keep their placements (Fixed::kept): their local blocks are the
// ones the kernel writes. The out= forms are derived (Variants.cpp).

#include <ATen/core/dispatch/Dispatcher.h>

#include "FreeDims.h"

namespace meshguard {
namespace ops {

namespace {

// What each output of a form is under the channel rule: the normalized
// tensor Shard(1), the per-channel ones Shard(0), cuDNN's reserve whole.
struct Form {
  const char* name;
  const char* overload;
  std::vector<int64_t> channel_outputs;
  const char* training; // the bool argument; nullptr: always / never
  bool always_training;
  bool backward = false;
};

// Operands that are [N, C, *]: the input (and the backward's grad_output).
bool is_activation(const Operand& o, bool backward) {
  return o.arg_index == 0 || (backward && o.arg_index == 1);
}

// In evaluation the forward's saved mean and invstd are empty tensors
// (whole); the functional forms' running statistics still follow the
// channel.
FreeDim channel_dim(const CallInfo& call, const Form& form, bool train) {
  FreeDim f{{}, form.channel_outputs};
  if (!train && !form.backward) {
    f.outputs[1] = f.outputs[2] = kWhole;
  }
  for (const Operand& o : call.operands) {
    f.operands.push_back(is_activation(o, form.backward) ? 1 : 0);
  }
  return f;
}

// Evaluation: a batch or spatial dim d of the activations; the per-channel
// operands whole; the backward's weight and bias gradients sum over d.
std::vector<FreeDim> evaluation_dims(const CallInfo& call, const Form& form) {
  std::vector<FreeDim> dims;
  const auto rank = static_cast<int64_t>(call.operands[0].shape.size());
  for (int64_t d = 0; d < rank; ++d) {
    if (d == 1) {
      continue;
    }
    FreeDim f;
    for (const Operand& o : call.operands) {
      f.operands.push_back(is_activation(o, form.backward) ? d : kWhole);
    }
    for (size_t k = 0; k < form.channel_outputs.size(); ++k) {
      f.outputs.push_back(k == 0 ? d : (form.backward ? kPartialSum : kWhole));
    }
    dims.push_back(std::move(f));
  }
  return dims;
}

void add_form(RuleTable& table, const Form& form) {
  auto it = operators_by_name().find(std::string("aten::") + form.name);
  if (it == operators_by_name().end()) {
    return; // libtorch 1.13 has no _native_batch_norm_legit & co.
  }
  for (const c10::OperatorHandle& handle : it->second) {
    const auto& schema = handle.schema();
    if (schema.overload_name() != form.overload) {
      continue;
    }
    const size_t training =
        form.training == nullptr ? SIZE_MAX : arg_index(schema, form.training);
    const size_t outputs = form.channel_outputs.size();
    RuleEntry entry;
    entry.family = "batch";
    entry.strategies = form.backward
        ? "grad_out, input S(1), per-channel S(0) → S(1), S(0), S(0); eval: S(d) (d ≠ 1) → S(d), P(sum), "
          "P(sum); R → R"
        : "input S(1), per-channel S(0) → S(1), S(0)…; eval: input S(d) (d ≠ 1), per-channel R → S(d), R…; "
          "R → R";
    entry.rule = [form, training, outputs](const CallInfo& call) {
      const bool train = form.always_training ||
          (training != SIZE_MAX && call.arg(training).toBool());
      std::vector<FreeDim> dims{channel_dim(call, form, train)};
      if (!train) {
        for (FreeDim& f : evaluation_dims(call, form)) {
          dims.push_back(std::move(f));
        }
      }
      return free_dim_rule(call, dims, outputs);
    };
    // native_batch_norm updates its running statistics when training, though
    // its schema does not mark them written.
    if (std::string(form.name) == "native_batch_norm") {
      const size_t mean = arg_index(schema, "running_mean");
      const size_t var = arg_index(schema, "running_var");
      entry.hidden_writes = [=](const c10::IValue* args) {
        return args[training].toBool() ? std::vector<size_t>{mean, var}
                                       : std::vector<size_t>{};
      };
    }
    table[entry_name(handle.operator_name())] = std::move(entry);
  }
}

} // namespace

void add_batch_norm_rules(RuleTable& table) {
  const std::vector<int64_t> three = {1, 0, 0};
  const std::vector<int64_t> with_reserve = {1, 0, 0, kWhole};
  const std::vector<int64_t> with_stats = {1, 0, 0, 0, 0};
  const std::vector<int64_t> reserve_and_stats = {1, 0, 0, kWhole, 0, 0};
  const std::vector<Form> forms = {
      {"native_batch_norm", "", three, "training", false},
      {"_native_batch_norm_legit", "", three, "training", false},
      {"_native_batch_norm_legit", "no_stats", three, "training", false},
      {"_native_batch_norm_legit_no_training", "", three, nullptr, false},
      {"_native_batch_norm_legit_functional",
       "",
       with_stats,
       "training",
       false},
      {"_batch_norm_with_update", "", with_reserve, nullptr, true},
      {"_batch_norm_no_update", "", with_reserve, nullptr, false},
      {"_batch_norm_with_update_functional",
       "",
       reserve_and_stats,
       nullptr,
       true},
      {"native_batch_norm_backward", "", three, "train", false, true},
  };
  for (const Form& form : forms) {
    add_form(table, form);
  }
}

} // namespace ops
} // namespace meshguard
