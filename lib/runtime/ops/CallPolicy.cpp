#include "CallPolicy.h"

namespace meshguard {
namespace ops {

ShardedCallDecision sharded_call(const c10::OperatorHandle& op) {
  ShardedCallDecision d;
  const auto& name = op.operator_name();
  d.name = entry_name(name);
  d.entry = find_rule(d.name);
  if (d.entry != nullptr) {
    d.kind = ShardedCall::kRule;
  } else if (op.hasKernelForDispatchKey(
                 c10::DispatchKey::CompositeImplicitAutograd)) {
    // Never reaches the kernel: it decomposes into ops that do.
    d.kind = ShardedCall::kDecomposes;
  } else {
    d.kind = ShardedCall::kRefused;
  }
  return d;
}

bool kernel_replaces_decomposition(const c10::OperatorHandle& op) {
  const auto& name = op.operator_name().name;
  const std::string suffix = "_backward";
  return name.size() > suffix.size() &&
      name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0 &&
      op.hasKernelForDispatchKey(c10::DispatchKey::CompositeImplicitAutograd) &&
      sharded_call(op).entry != nullptr;
}

} // namespace ops

ShardedCall sharded_call_policy(const c10::OperatorName& name) {
  auto op = c10::Dispatcher::singleton().findOp(name);
  TORCH_CHECK(
      op.has_value(), "sharded_call_policy: no operator ", c10::toString(name));
  return ops::sharded_call(*op).kind;
}

} // namespace meshguard
