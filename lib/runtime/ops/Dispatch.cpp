// The dispatcher kernel for DTensors: every operator called with a DTensor
// argument lands here (via DispatchKey::PrivateUse2). All-Replicate operands
// run any op; otherwise the op's sharding rule (lib/runtime/ops/) decides how
// to redistribute the operands, the op runs on the local tensors and its
// results are wrapped again (RunWithRule.cpp). An op without a rule is an
// error: never a wrong answer computed silently.

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/ivalue.h>
#include <ATen/core/stack.h>

#include <meshguard/runtime/DTensorImpl.h>

#include "ConsistencyCheck.h"
#include "Internal.h"
#include "ops/Audit.h"
#include "ops/CallPolicy.h"
#include "ops/Dispatch.h"
#include "ops/DispatchSupport.h"
#include "ops/IValueTensors.h"
#include "ops/RuleTable.h"

namespace meshguard {

namespace {

using namespace dispatch;
using ops::for_each_tensor;

// PyTorch's first line word for word (its op name, e.g. aten.add.Tensor;
// test/oracle checks it against PyTorch 2.13), then meshguard's explanation.
[[noreturn]] void fail_mixed(const c10::OperatorHandle& op) {
  const auto& schema = op.schema();
  std::string name = schema.name();
  const auto sep = name.find("::");
  if (sep != std::string::npos) {
    name.replace(sep, 2, ".");
  }
  TORCH_CHECK(
      false,
      name,
      ".",
      schema.overload_name().empty() ? std::string("default")
                                     : schema.overload_name(),
      " got mixed torch.Tensor and DTensor, need to convert all torch.Tensor to DTensor before calling "
      "distributed operators!\n",
      "A plain operand that is not scalar-like (one element) is not promoted to a DTensor; make it one "
      "(meshguard::distribute_tensor / from_local), or compute on to_local() of the DTensor operands.");
}

void check_operands(const c10::OperatorHandle& op, const ArgScan& scan) {
  const DTensorSpec& spec = scan.first->spec();
  for (const auto* d : scan.dtensors) {
    if (!(d->spec().mesh == spec.mesh)) {
      TORCH_CHECK(
          false,
          op_display_name(op),
          ": DTensor operands live on different meshes: ",
          spec.mesh.to_string(),
          " and ",
          d->spec().mesh.to_string());
    }
  }
  if (scan.plain_not_scalar) {
    fail_mixed(op);
  }
}

// Autograd fills the gradient of an unused output with plain zeros
// (split/unbind's backward: at::zeros from the saved TensorOptions, which
// carry no DTensor), then cats them with the DTensor gradients. A plain
// tensor of zeros is the same value on every rank, so it joins as a
// Replicate DTensor. Any other plain operand stays an error. Only read on
// the error path: ops without plain operands never pay for it.
bool promote_plain_zeros(
    const c10::OperatorHandle& op,
    torch::jit::Stack* stack,
    size_t args_begin,
    const DTensorSpec& like) {
  auto needs_promotion = [](const at::Tensor& t) {
    return t.defined() && get_dtensor_impl(t) == nullptr && !scalar_like(t);
  };
  const auto& schema_args = op.schema().arguments();
  for (size_t i = args_begin; i < stack->size(); ++i) {
    // A written plain tensor (an in-place self, an out tensor) must not be
    // swapped for a copy: the caller would never see the result.
    const auto* alias = schema_args[i - args_begin].alias_info();
    const bool written = alias != nullptr && alias->isWrite();
    bool ok = true;
    for_each_tensor((*stack)[i], [&](const at::Tensor& t) {
      ok = ok &&
          (!needs_promotion(t) ||
           (!written && !t.requires_grad() && !t.any().item<bool>()));
    });
    if (!ok) {
      return false;
    }
  }
  for (size_t i = args_begin; i < stack->size(); ++i) {
    replace_tensors((*stack)[i], [&](const at::Tensor& t) -> at::Tensor {
      if (!needs_promotion(t)) {
        return t;
      }
      return make_dtensor(
          t,
          DTensorSpec{
              like.mesh,
              Placements(like.mesh.ndim(), Replicate{}),
              t.sizes().vec()});
    });
  }
  return true;
}

bool all_replicate(const ArgScan& scan) {
  for (const auto* d : scan.dtensors) {
    if (!d->spec().all_replicate()) {
      return false;
    }
  }
  return true;
}

// Every DTensor operand all-Replicate: any op runs on the local tensors and
// its results are Replicate with their own shapes.
void run_replicated(
    const c10::OperatorHandle& op,
    torch::jit::Stack* stack,
    size_t args_begin,
    const ArgScan& scan) {
  const DeviceMesh mesh = scan.first->spec().mesh;
  Originals originals;
  for (size_t i = args_begin; i < stack->size(); ++i) {
    (*stack)[i] = unwrap((*stack)[i], originals);
  }
  run_below_autograd(op, stack);
  // An out= tensor ATen resized: a replica's global shape is its local one.
  for (const auto& entry : originals) {
    DTensorImpl* impl = get_dtensor_impl(entry.second);
    if (impl != nullptr && impl->local().sizes() != impl->sizes()) {
      impl->set_local_and_spec(
          impl->local(),
          DTensorSpec{
              mesh, impl->spec().placements, impl->local().sizes().vec()});
    }
  }
  wrap_results(op, stack, originals, [&](size_t, const at::Tensor& out) {
    return DTensorSpec{
        mesh, Placements(mesh.ndim(), Replicate{}), out.sizes().vec()};
  });
}

// An op whose output depends on the values' order or count (nonzero,
// masked_select, masked_scatter): every DTensor operand is redistributed to
// Replicate (one collective each at most), then the op runs as on
// all-Replicate operands. An in-place op's self keeps its placements: the
// replicated result goes back into self's local block (no collective: a
// Replicate value holds every block, and a Partial's is rank 0's copy).
void run_on_replicas(
    const c10::OperatorHandle& op,
    torch::jit::Stack* stack,
    size_t args_begin) {
  bool other_write = false;
  const int64_t written = written_argument(op, other_write);
  if (other_write) {
    fail_no_rule(
        op,
        scan_operands(*stack, args_begin),
        "out= variants run on all-Replicate operands only; call the functional op");
  }
  at::Tensor self;
  for (size_t i = args_begin; i < stack->size(); ++i) {
    replace_tensors((*stack)[i], [&](const at::Tensor& t) -> at::Tensor {
      const DTensorImpl* impl = get_dtensor_impl(t);
      if (impl == nullptr || impl->spec().all_replicate()) {
        return t;
      }
      if (static_cast<int64_t>(i - args_begin) == written) {
        self = t;
      }
      const DTensorSpec& spec = impl->spec();
      const Placements replicate(spec.mesh.ndim(), Replicate{});
      return make_dtensor(
          detail::redistribute_local(impl->local(), spec, replicate),
          DTensorSpec{spec.mesh, replicate, spec.shape});
    });
  }
  run_replicated(op, stack, args_begin, scan_operands(*stack, args_begin));
  if (self.defined()) {
    const DTensorImpl* result = get_dtensor_impl(stack->back().toTensor());
    const DTensorSpec& spec = get_dtensor_impl(self)->spec();
    get_dtensor_impl(self)->local().copy_(detail::redistribute_local(
        result->local(), result->spec(), spec.placements));
    stack->back() = self;
  }
}

// ops::sharded_call memoised per operator (schemas live as long as their
// operator's registration).
const ops::ShardedCallDecision& rule_for(const c10::OperatorHandle& op) {
  using Memo = std::unordered_map<
      const c10::FunctionSchema*,
      std::unique_ptr<ops::ShardedCallDecision>>;
  static std::mutex mu;
  static auto* memo = new Memo();
  // Memos of earlier generations of users' rules (register_sharding):
  // kept, so that a pointer another thread holds stays valid.
  static auto* retired = new std::vector<Memo>();
  static uint64_t memo_generation = 0;
  const uint64_t generation = ops::user_rules_generation();
  const c10::FunctionSchema* key = &op.schema();
  // The same op called again on this thread (a loop, a layer) skips the lock
  // and the hash: memo entries are never erased, so the pointer stays valid.
  thread_local const c10::FunctionSchema* last_key = nullptr;
  thread_local const ops::ShardedCallDecision* last = nullptr;
  thread_local uint64_t last_generation = 0;
  if (key == last_key && generation == last_generation) {
    return *last;
  }
  std::lock_guard<std::mutex> lock(mu);
  if (generation != memo_generation) {
    retired->push_back(std::move(*memo));
    memo->clear();
    memo_generation = generation;
  }
  auto it = memo->find(key);
  if (it == memo->end()) {
    it = memo->emplace(
                 key,
                 std::make_unique<ops::ShardedCallDecision>(
                     ops::sharded_call(op)))
             .first;
  }
  last_key = key;
  last = it->second.get();
  last_generation = generation;
  return *last;
}

} // namespace

void dtensor_kernel(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  // An operator has no caller's line: an outer entry point's wins, else the
  // fingerprint names the operator (its redistributions are collectives).
  detail::UserCall call(op.operator_name().name.c_str(), CallSite{});
  const auto num_args = op.schema().arguments().size();
  const auto args_begin = stack->size() - num_args;

  ArgScan scan = scan_operands(*stack, args_begin);
  TORCH_CHECK(
      scan.first != nullptr,
      op_display_name(op),
      ": reached meshguard's DTensor kernel without a DTensor");
  if (scan.plain_not_scalar &&
      promote_plain_zeros(op, stack, args_begin, scan.first->spec())) {
    scan = scan_operands(*stack, args_begin);
  }
  check_operands(op, scan);
  if (all_replicate(scan)) {
    run_replicated(op, stack, args_begin, scan);
    return;
  }
  const ops::ShardedCallDecision& rule = rule_for(op);
  if (rule.kind != ShardedCall::kRule) {
    fail_no_rule(op, scan, "the op is not in the sharding-rule table");
  }
  if (rule.entry->run_whole) {
    rule.entry->run_whole(*stack, args_begin);
    return;
  }
  if (rule.entry->replicates_operands) {
    run_on_replicas(op, stack, args_begin);
    return;
  }
  if (ops::audit_on()) {
    ops::audited_run(op, stack, args_begin, [&] {
      run_with_rule(op, rule.name, *rule.entry, stack, args_begin, scan);
    });
    return;
  }
  run_with_rule(op, rule.name, *rule.entry, stack, args_begin, scan);
}

} // namespace meshguard
