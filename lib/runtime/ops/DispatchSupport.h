#pragma once

// What the DTensor kernel's paths share (Dispatch.cpp: the kernel, the
// all-Replicate and replicate-first paths; RunWithRule.cpp: the rule path):
// scanning operands, unwrapping, the callers' tensors behind in-place and
// out= results, wrapping results, the errors.

#include <string>
#include <utility>

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/ivalue.h>
#include <ATen/core/stack.h>
#include <c10/util/SmallVector.h>

#include <meshguard/runtime/DTensorImpl.h>

#include "Internal.h"
#include "ops/RuleTable.h"

namespace meshguard {
namespace dispatch {

// "aten::mm.default": the op's name as users and the rule table spell it.
std::string op_display_name(const c10::OperatorHandle& op);

inline bool scalar_like(const at::Tensor& t) {
  return t.dim() == 0 || t.numel() == 1;
}

// Inline capacity for the few operands of an op: no heap on the hot path.
struct ArgScan {
  c10::SmallVector<const DTensorImpl*, 8> dtensors;
  bool plain_not_scalar = false; // a plain operand that is not scalar-like
  const DTensorImpl* first = nullptr;
};

// Replaces the tensor, or each tensor of the list, that `v` holds by f(t);
// false when `v` holds neither.
// f is called once per tensor, so it is never forwarded.
// NOLINTBEGIN(cppcoreguidelines-missing-std-forward)
template <typename F>
inline bool replace_tensors(c10::IValue& v, F&& f) {
  if (v.isTensor()) {
    v = f(v.toTensor());
    return true;
  }
  if (v.isTensorList()) {
    c10::List<at::Tensor> out;
    for (const at::Tensor& t : v.toTensorList()) {
      out.push_back(f(t));
    }
    v = out;
    return true;
  }
  return false;
}
// NOLINTEND(cppcoreguidelines-missing-std-forward)

// The callers' tensors, by the impl the op sees (its in-place/out= results
// are those). A handful per call: a vector, where a hash map would allocate
// a node per entry on every op call. The first entry for an impl wins.
using Originals = c10::SmallVector<std::pair<c10::TensorImpl*, at::Tensor>, 8>;

const at::Tensor* find_original(
    const Originals& originals,
    c10::TensorImpl* impl);

// Puts the op's results back on the stack as DTensors: the caller's own
// tensor for in-place/out= results, else `spec_of(i, local)`.
template <typename SpecOf>
inline void wrap_results(
    const c10::OperatorHandle& op,
    torch::jit::Stack* stack,
    const Originals& originals,
    SpecOf spec_of) {
  const auto num_returns = op.schema().returns().size();
  const auto rets_begin = stack->size() - num_returns;
  size_t index = 0;
  auto wrap = [&](const at::Tensor& out) -> at::Tensor {
    const size_t i = index++;
    if (!out.defined()) {
      return out;
    }
    if (const at::Tensor* original =
            find_original(originals, out.unsafeGetTensorImpl())) {
      return *original; // in-place or out= result: the caller's tensor
    }
    return make_dtensor(out, spec_of(i, out));
  };
  for (size_t i = rets_begin; i < stack->size(); ++i) {
    if (!replace_tensors((*stack)[i], wrap)) {
      ++index;
    }
  }
}

// A stack value with its DTensors replaced by their local tensors; the
// callers' tensors are recorded in `originals`.
c10::IValue unwrap(const c10::IValue& v, Originals& originals);

ArgScan scan_operands(const torch::jit::Stack& stack, size_t args_begin);

[[noreturn]] void fail_no_rule(
    const c10::OperatorHandle& op,
    const ArgScan& scan,
    const char* why);

void run_below_autograd(
    const c10::OperatorHandle& op,
    torch::jit::Stack* stack);

// The index of the argument the op writes in place (-1: none); another
// written argument (out=, running statistics) is reported by `other_write`.
int64_t written_argument(const c10::OperatorHandle& op, bool& other_write);

// An op of the rule table on sharded/Partial operands (RunWithRule.cpp).
void run_with_rule(
    const c10::OperatorHandle& op,
    const std::string& name,
    const ops::RuleEntry& entry,
    torch::jit::Stack* stack,
    size_t args_begin,
    const ArgScan& scan);

} // namespace dispatch
} // namespace meshguard
