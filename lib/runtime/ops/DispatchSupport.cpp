// What the DTensor kernel's paths share (DispatchSupport.h).

#include "ops/DispatchSupport.h"

#include <sstream>

#include <c10/core/impl/LocalDispatchKeySet.h>

#include "ops/IValueTensors.h"

namespace meshguard {
namespace dispatch {

using ops::for_each_tensor;

std::string op_display_name(const c10::OperatorHandle& op) {
  const auto& schema = op.schema();
  return schema.name() +
      (schema.overload_name().empty() ? std::string(".default")
                                      : "." + schema.overload_name());
}

const at::Tensor* find_original(
    const Originals& originals,
    c10::TensorImpl* impl) {
  for (const auto& entry : originals) {
    if (entry.first == impl) {
      return &entry.second;
    }
  }
  return nullptr;
}

c10::IValue unwrap(const c10::IValue& v, Originals& originals) {
  auto local_of = [&](const at::Tensor& t) -> at::Tensor {
    if (auto* impl = get_dtensor_impl(t)) {
      originals.emplace_back(impl->local().unsafeGetTensorImpl(), t);
      return impl->local();
    }
    if (t.defined()) {
      originals.emplace_back(t.unsafeGetTensorImpl(), t);
    }
    return t;
  };
  if (v.isTensor()) {
    return local_of(v.toTensor());
  }
  if (v.isTensorList()) {
    c10::List<at::Tensor> out;
    for (const at::Tensor& t : v.toTensorList()) {
      out.push_back(local_of(t));
    }
    return out;
  }
  if (v.isList()) {
    auto list = v.toList();
    const auto elem = list.elementType();
    if (elem->kind() == c10::OptionalType::Kind) {
      c10::List<c10::optional<at::Tensor>> out;
      for (const c10::IValue& e : v.toListRef()) {
        out.push_back(
            e.isTensor() ? c10::optional<at::Tensor>(local_of(e.toTensor()))
                         : c10::nullopt);
      }
      return out;
    }
  }
  return v;
}

[[noreturn]] void fail_no_rule(
    const c10::OperatorHandle& op,
    const ArgScan& scan,
    const char* why) {
  std::ostringstream os;
  os << op_display_name(op)
     << ": no sharding rule for DTensor operands with placements ";
  for (size_t i = 0; i < scan.dtensors.size(); ++i) {
    os << (i ? ", " : "") << to_string(scan.dtensors[i]->spec().placements);
  }
  os << " (" << why
     << "). meshguard runs the ops of its sharding-rule table (docs/runtime/operator-table.md) on sharded and "
        "Partial operands and any op on all-Replicate operands; redistribute the operands (e.g. to Replicate) "
        "first.";
  TORCH_CHECK(false, os.str());
}

void run_below_autograd(
    const c10::OperatorHandle& op,
    torch::jit::Stack* stack) {
  // Below autograd: the wrapper already recorded what autograd needs.
  at::AutoDispatchBelowADInplaceOrView guard;
  op.callBoxed(stack);
}

// The index of the argument the op writes in place (-1: none); another
// written argument (out=) is reported by `other_write`.
int64_t written_argument(const c10::OperatorHandle& op, bool& other_write) {
  int64_t written = -1;
  other_write = false;
  const auto& args = op.schema().arguments();
  for (size_t i = 0; i < args.size(); ++i) {
    const auto* alias = args[i].alias_info();
    if (alias && alias->isWrite()) {
      if (i == 0) {
        written = 0;
      } else {
        other_write = true;
      }
    }
  }
  return written;
}

ArgScan scan_operands(const torch::jit::Stack& stack, size_t args_begin) {
  ArgScan scan;
  for (size_t i = args_begin; i < stack.size(); ++i) {
    for_each_tensor(stack[i], [&](const at::Tensor& t) {
      if (!t.defined()) {
        return;
      }
      if (auto* impl = get_dtensor_impl(t)) {
        scan.dtensors.push_back(impl);
        if (!scan.first) {
          scan.first = impl;
        }
      } else {
        scan.plain_not_scalar = scan.plain_not_scalar || !scalar_like(t);
      }
    });
  }
  return scan;
}

} // namespace dispatch
} // namespace meshguard
