// Ops that answer a question about whole tensors with a bool: equal (same
// shape and values) and is_same_size (same shape). is_same_size reads the
// global shapes, no collective. equal compares blocks: the other operand is
// moved to self's placements (both to Replicate when either is Partial),
// each rank compares its blocks, and one all-reduce (min) per mesh dim
// makes every rank give the same answer, true only if every block agrees.

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>
#include <c10/core/impl/LocalDispatchKeySet.h>

#include <meshguard/runtime/DTensorImpl.h>

#include "Internal.h"
#include "RuleTable.h"

namespace meshguard {
namespace ops {

namespace {

const DTensorImpl& dtensor_arg(const c10::IValue& v, const char* op) {
  const DTensorImpl* impl =
      v.isTensor() ? get_dtensor_impl(v.toTensor()) : nullptr;
  TORCH_CHECK(
      impl != nullptr,
      op,
      ": got mixed torch.Tensor and DTensor, need to convert all torch.Tensor to DTensor before calling "
      "distributed operators!");
  return *impl;
}

bool has_partial(const Placements& placements) {
  for (const Placement& p : placements) {
    if (is_partial(p)) {
      return true;
    }
  }
  return false;
}

void run_is_same_size(torch::jit::Stack& stack, size_t begin) {
  const auto& a = dtensor_arg(stack[begin], "aten.is_same_size.default");
  const auto& b = dtensor_arg(stack[begin + 1], "aten.is_same_size.default");
  const bool same = a.spec().shape == b.spec().shape;
  torch::jit::drop(stack, 2);
  stack.emplace_back(same);
}

void run_equal(torch::jit::Stack& stack, size_t begin) {
  const auto& a = dtensor_arg(stack[begin], "aten.equal.default");
  const auto& b = dtensor_arg(stack[begin + 1], "aten.equal.default");
  const DTensorSpec& spec = a.spec();
  TORCH_CHECK(
      spec.mesh == b.spec().mesh,
      "aten.equal.default: DTensor operands live on different meshes");
  bool same = spec.shape == b.spec().shape;
  if (same) {
    Placements target = spec.placements;
    at::Tensor mine = a.local();
    if (has_partial(target) || has_partial(b.spec().placements)) {
      target.assign(target.size(), Replicate{});
      mine = detail::redistribute_local(mine, spec, target);
    }
    const at::Tensor theirs =
        detail::redistribute_local(b.local(), b.spec(), target);
    at::AutoDispatchBelowADInplaceOrView guard;
    at::Tensor agree =
        at::scalar_tensor(at::equal(mine, theirs) ? 1 : 0, at::kInt)
            .to(mine.device());
    for (int64_t d = 0; d < spec.mesh.ndim(); ++d) {
      agree = detail::reduce_over(agree, spec.mesh, d, ReduceOp::MIN);
    }
    same = agree.item<int>() == 1;
  }
  torch::jit::drop(stack, 2);
  stack.emplace_back(same);
}

void add(
    RuleTable& table,
    const char* name,
    std::string strategies,
    std::function<void(torch::jit::Stack&, size_t)> run) {
  if (!operators_by_name().count(name)) {
    return;
  }
  RuleEntry entry;
  entry.family = "tensor";
  entry.strategies = std::move(strategies);
  entry.run_whole = std::move(run);
  table[std::string(name) + ".default"] = std::move(entry);
}

} // namespace

void add_predicate_rules(RuleTable& table) {
  add(table,
      "aten::equal",
      "other moved to self's placements (both R when one is Partial); each rank compares its blocks, "
      "one all-reduce (min) per mesh dim → the same bool on every rank",
      run_equal);
  add(table,
      "aten::is_same_size",
      "the global shapes compared, no collective → bool",
      run_is_same_size);
}

} // namespace ops
} // namespace meshguard
