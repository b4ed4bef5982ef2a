// _fused_adam(w) and their in-place forms (torch.optim.Adam(fused=True)) on
// DTensors. Adam's step is elementwise: each parameter's block is updated
// with the same blocks of its gradient and states, on the local tensors, in
// one call of the fused kernel. Each gradient and state is first moved to
// its parameter's placements (a Partial gradient is reduced: data
// parallelism's all-reduce); a state the in-place step updates on a moved
// copy (or a gradient it unscales, with grad_scale) is moved back into its
// own placements after the step, so the caller's tensor holds the update.
// Step counters, lr, grad_scale and found_inf are replicated.

#include <array>

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>
#include <c10/core/impl/LocalDispatchKeySet.h>

#include <meshguard/runtime/DTensorImpl.h>

#include "Internal.h"
#include "RuleTable.h"

namespace meshguard {
namespace ops {

namespace {

// Tensor[] arguments: params, grads, exp_avgs, exp_avg_sqs,
// max_exp_avg_sqs (amsgrad; may be empty), state_steps.
constexpr size_t kParams = 0, kGrads = 1, kSteps = 5;

std::string position(const char* list, size_t i) {
  return std::string(list) + "[" + std::to_string(i) + "]";
}

// A tensor the step writes, moved to its parameter's placements for the
// call: its moved block goes back to where it lies afterwards.
struct WriteBack {
  DTensorImpl* impl;
  at::Tensor moved;
  const DTensorSpec* param;
};

// `t` (element i of list `name`) as a local tensor in the placements of its
// parameter `param`. When the step writes it (`written`) and it had to be
// moved, the moved block is recorded to be written back.
at::Tensor local_like(
    const at::Tensor& t,
    const DTensorSpec& param,
    const char* name,
    size_t i,
    bool written,
    std::vector<WriteBack>& write_back) {
  DTensorImpl* impl = get_dtensor_impl(t);
  TORCH_CHECK(
      impl != nullptr,
      "_fused_adam: ",
      position(name, i),
      " is a plain tensor beside a DTensor parameter; make it a DTensor of its parameter's placements");
  const DTensorSpec& spec = impl->spec();
  TORCH_CHECK(
      spec.mesh == param.mesh && spec.shape == param.shape,
      "_fused_adam: ",
      position(name, i),
      " lives on another mesh or has another shape than its parameter");
  if (spec.placements == param.placements) {
    return impl->local();
  }
  at::Tensor moved =
      detail::redistribute_local(impl->local(), spec, param.placements);
  if (written) {
    write_back.push_back({impl, moved, &param});
  }
  return moved;
}

// A scalar-like tensor argument (a step counter, lr, grad_scale,
// found_inf): its value on every rank.
at::Tensor replicated_local(const at::Tensor& t) {
  const DTensorImpl* impl = get_dtensor_impl(t);
  if (impl == nullptr) {
    return t;
  }
  const DTensorSpec& spec = impl->spec();
  if (spec.all_replicate()) {
    return impl->local();
  }
  return detail::redistribute_local(
      impl->local(), spec, Placements(spec.mesh.ndim(), Replicate{}));
}

void run_fused_adam(
    const c10::OperatorHandle& op,
    torch::jit::Stack& stack,
    size_t begin) {
  const auto& schema = op.schema();
  const size_t num_args = schema.arguments().size();
  const bool in_place = schema.returns().empty();
  const size_t grad_scale =
      schema.argumentIndexWithName("grad_scale").value_or(num_args);
  const bool unscales =
      grad_scale < num_args && !stack[begin + grad_scale].isNone();
  const std::vector<at::Tensor> params =
      stack[begin + kParams].toTensorVector();
  std::vector<DTensorSpec> specs;
  for (size_t i = 0; i < params.size(); ++i) {
    const DTensorImpl* impl = get_dtensor_impl(params[i]);
    TORCH_CHECK(
        impl != nullptr,
        "_fused_adam: ",
        position("params", i),
        " is a plain tensor beside DTensors; make every parameter a DTensor");
    for (const Placement& p : impl->spec().placements) {
      TORCH_CHECK(
          !is_partial(p),
          "_fused_adam: ",
          position("params", i),
          " is Partial; a parameter must be Shard or Replicate");
    }
    specs.push_back(impl->spec());
  }
  static constexpr std::array<const char*, 5> names = {
      "params", "grads", "exp_avgs", "exp_avg_sqs", "max_exp_avg_sqs"};
  std::vector<WriteBack> write_back;
  torch::jit::Stack call;
  call.reserve(num_args);
  for (size_t a = 0; a < num_args; ++a) {
    const c10::IValue& v = stack[begin + a];
    if (v.isTensorList()) {
      const std::vector<at::Tensor> list = v.toTensorVector();
      c10::List<at::Tensor> locals;
      for (size_t i = 0; i < list.size(); ++i) {
        TORCH_CHECK(
            i < specs.size(),
            "_fused_adam: the tensor lists have different lengths");
        locals.push_back(
            a == kSteps ? replicated_local(list[i])
                        : local_like(
                              list[i],
                              specs[i],
                              names[a],
                              i,
                              in_place && (a != kGrads || unscales),
                              write_back));
      }
      call.emplace_back(std::move(locals));
    } else if (v.isTensor()) {
      call.emplace_back(replicated_local(v.toTensor()));
    } else {
      call.push_back(v);
    }
  }
  {
    at::AutoDispatchBelowADInplaceOrView guard;
    op.callBoxed(call);
    for (const WriteBack& w : write_back) {
      const DTensorSpec moved{
          w.param->mesh, w.param->placements, w.param->shape};
      w.impl->local().copy_(detail::redistribute_local(
          w.moved, moved, w.impl->spec().placements));
    }
  }
  torch::jit::drop(stack, num_args);
  if (in_place) {
    return; // the local blocks were updated
  }
  // Each returned list's element i is parameter i's block.
  for (const c10::IValue& list : call) {
    c10::List<at::Tensor> wrapped;
    const std::vector<at::Tensor> locals = list.toTensorVector();
    for (size_t i = 0; i < locals.size(); ++i) {
      wrapped.push_back(make_dtensor(locals[i], specs[i]));
    }
    stack.emplace_back(std::move(wrapped));
  }
}

} // namespace

void add_fused_optimizer_rules(RuleTable& table) {
  for (const char* name :
       {"aten::_fused_adam",
        "aten::_fused_adam_",
        "aten::_fused_adamw",
        "aten::_fused_adamw_"}) {
    auto it = operators_by_name().find(name);
    if (it == operators_by_name().end()) {
      continue; // libtorch 1.13's CPU has no fused Adam
    }
    for (const c10::OperatorHandle& op : it->second) {
      const auto& args = op.schema().arguments();
      if (!args.empty() && args.back().name() == "out") {
        continue; // the .out forms: not in PyTorch's DTensor either
      }
      RuleEntry entry;
      entry.family = "foreach";
      entry.strategies =
          "each parameter's block with its gradient and states moved to the parameter's placements "
          "(written states moved back); steps, lr, grad_scale R";
      entry.run_whole = [op](torch::jit::Stack& stack, size_t begin) {
        run_fused_adam(op, stack, begin);
      };
      table[entry_name(op.operator_name())] = std::move(entry);
    }
  }
}

} // namespace ops
} // namespace meshguard
