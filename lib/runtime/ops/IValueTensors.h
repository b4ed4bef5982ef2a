#pragma once

// The tensors an argument or result of an op holds on the dispatcher's
// stack: a Tensor, a Tensor[], or the tensors of another list (Tensor?[]).
// Shared by the DTensor kernel (ops/Dispatch.cpp) and the audit
// (ops/Audit.cpp).

#include <ATen/core/ivalue.h>

namespace meshguard {
namespace ops {

// f is called once per tensor, so it is never forwarded.
// NOLINTBEGIN(cppcoreguidelines-missing-std-forward)
template <typename F>
void for_each_tensor(const c10::IValue& v, F&& f) {
  if (v.isTensor()) {
    f(v.toTensor());
  } else if (v.isTensorList()) {
    for (const at::Tensor& t : v.toTensorList()) {
      f(t);
    }
  } else if (v.isList()) {
    for (const c10::IValue& e : v.toListRef()) {
      if (e.isTensor()) {
        f(e.toTensor());
      }
    }
  }
}
// NOLINTEND(cppcoreguidelines-missing-std-forward)

} // namespace ops
} // namespace meshguard
