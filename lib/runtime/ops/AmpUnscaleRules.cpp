// _amp_foreach_non_finite_check_and_unscale_(grads, found_inf, inv_scale),
// GradScaler's step: every gradient multiplied by inv_scale in place, and
// found_inf set when any element is inf or NaN. Each rank unscales its
// blocks where they lie (the gradients keep their placements) and checks
// them; one all-reduce (max) per mesh dim makes found_inf the same on every
// rank, set when any block anywhere holds a non-finite value. A Partial
// gradient's shares are checked share by share (a share that is not finite
// makes the sum not finite).

#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>

#include <meshguard/runtime/DTensorImpl.h>

#include "Internal.h"
#include "RuleTable.h"

namespace meshguard {
namespace ops {

namespace {

constexpr const char* kName =
    "aten._amp_foreach_non_finite_check_and_unscale_.default";

// found_inf and inv_scale: a replicated DTensor's local value, or a plain
// one-element tensor as GradScaler makes them.
at::Tensor whole_value(const at::Tensor& t, const char* what) {
  const DTensorImpl* impl = get_dtensor_impl(t);
  if (impl == nullptr) {
    return t;
  }
  TORCH_CHECK(
      impl->spec().all_replicate(),
      kName,
      ": ",
      what,
      " must be Replicate (it is ",
      to_string(impl->spec().placements),
      ")");
  return impl->local();
}

void run_unscale(
    const c10::OperatorHandle& op,
    torch::jit::Stack& stack,
    size_t begin) {
  const std::vector<at::Tensor> grads = stack[begin].toTensorVector();
  const at::Tensor found_inf = stack[begin + 1].toTensor();
  const at::Tensor inv_scale =
      whole_value(stack[begin + 2].toTensor(), "inv_scale");
  const DeviceMesh* mesh = nullptr;
  c10::List<at::Tensor> locals;
  for (const at::Tensor& g : grads) {
    const DTensorImpl* impl = get_dtensor_impl(g);
    TORCH_CHECK(
        impl != nullptr,
        kName,
        ": got mixed torch.Tensor and DTensor, need to convert all torch.Tensor to DTensor before calling "
        "distributed operators!");
    TORCH_CHECK(
        mesh == nullptr || *mesh == impl->spec().mesh,
        kName,
        ": the gradients live on different meshes");
    mesh = &impl->spec().mesh;
    locals.push_back(impl->local());
  }
  at::Tensor found_local = whole_value(found_inf, "found_inf");
  {
    at::AutoDispatchBelowADInplaceOrView guard;
    at::Tensor found = at::zeros_like(found_local);
    torch::jit::Stack call{c10::IValue(locals), found, inv_scale};
    op.callBoxed(call);
    for (int64_t d = 0; mesh != nullptr && d < mesh->ndim(); ++d) {
      found = detail::reduce_over(found, *mesh, d, ReduceOp::MAX);
    }
    // As the kernel: found_inf is set, never cleared.
    found_local.copy_(at::maximum(found_local, found));
  }
  torch::jit::drop(stack, 3);
}

} // namespace

void add_amp_unscale_rules(RuleTable& table) {
  auto it = operators_by_name().find(
      "aten::_amp_foreach_non_finite_check_and_unscale_");
  if (it == operators_by_name().end()) {
    return;
  }
  for (const c10::OperatorHandle& op : it->second) {
    if (!op.schema().overload_name().empty()) {
      continue;
    }
    RuleEntry entry;
    entry.family = "foreach";
    entry.strategies =
        "each gradient unscaled where it lies (placements kept); found_inf: the max over every block, "
        "all-reduced (R); inv_scale R";
    entry.run_whole = [op](torch::jit::Stack& stack, size_t begin) {
      run_unscale(op, stack, begin);
    };
    table[entry_name(op.operator_name())] = std::move(entry);
  }
}

} // namespace ops
} // namespace meshguard
