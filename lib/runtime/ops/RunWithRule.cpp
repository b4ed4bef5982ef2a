// The DTensor kernel's rule path: an op of the rule table on sharded or
// Partial operands. The propagator decides each operand's placement and the
// outputs'; the operands are redistributed, the op runs on the local
// tensors (or the rule's own local runner) and the results are wrapped with
// the decided specs. What the op writes keeps its placement: an in-place
// self, out= tensors, and other written arguments (batch norm's running
// statistics), whose local blocks the kernel updates.

#include <string>
#include <vector>

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>
#include <c10/util/SmallVector.h>

#include <meshguard/runtime/DTensorImpl.h>

#include "Internal.h"
#include "ops/DispatchSupport.h"
#include "ops/Propagator.h"

namespace meshguard {
namespace dispatch {

namespace {

// The call as the propagator sees it, with the callers' DTensors behind it.
struct RuleCall {
  ops::CallInfo call;
  c10::SmallVector<const DTensorImpl*, 8> impls;
  c10::SmallVector<at::Tensor, 8> tensors; // the callers' DTensors
  int64_t written = -1; // the operand an in-place op writes (its self)
  c10::SmallVector<int64_t, 4> kept; // other operands the op writes
};

// An out= form's out tensors (the trailing `out_args` arguments): DTensors
// that keep their placements.
struct OutTensors {
  c10::SmallVector<const Placements*, 2> placements;
  c10::SmallVector<DTensorImpl*, 2> impls;
};

OutTensors out_tensors(
    const c10::OperatorHandle& op,
    const ArgScan& scan,
    const c10::IValue* args,
    size_t num_args,
    size_t all_args) {
  OutTensors out;
  for (size_t i = num_args; i < all_args; ++i) {
    DTensorImpl* impl =
        args[i].isTensor() ? get_dtensor_impl(args[i].toTensor()) : nullptr;
    if (impl == nullptr) {
      fail_no_rule(
          op,
          scan,
          "the out= tensor of a sharded call must be a DTensor (of the placements the result gets)");
    }
    out.placements.push_back(&impl->spec().placements);
    out.impls.push_back(impl);
  }
  return out;
}

// An out= op not derived from a functional rule (its rule would not know
// the out tensors).
bool writes_kwarg_only(const c10::OperatorHandle& op) {
  for (const auto& a : op.schema().arguments()) {
    if (a.kwarg_only() && a.alias_info() != nullptr &&
        a.alias_info()->isWrite()) {
      return true;
    }
  }
  return false;
}

// Whether the op writes argument `i` (before the out tensors): marked in its
// schema, or named by the entry (native_batch_norm's running statistics).
bool writes_argument(
    const c10::OperatorHandle& op,
    const ops::RuleEntry& entry,
    const c10::IValue* args,
    size_t i) {
  const auto* alias = op.schema().arguments()[i].alias_info();
  if (alias != nullptr && alias->isWrite()) {
    return true;
  }
  if (!entry.hidden_writes) {
    return false;
  }
  for (const size_t w : entry.hidden_writes(args)) {
    if (w == i) {
      return true;
    }
  }
  return false;
}

RuleCall collect_operands(
    const c10::OperatorHandle& op,
    const ops::RuleEntry& entry,
    const ArgScan& scan,
    const c10::IValue* args,
    size_t num_args,
    int64_t written_arg) {
  RuleCall rc;
  const DeviceMesh& mesh = scan.first->spec().mesh;
  ops::CallInfo& call = rc.call;
  call.args = args;
  call.num_args = num_args;
  call.mesh_size = mesh.size();
  call.mesh_shape = mesh.shape();
  call.operands.reserve(scan.dtensors.size());
  auto add = [&](const at::Tensor& t, DTensorImpl* impl, size_t i, int64_t k) {
    call.operands.push_back(
        ops::Operand{i, k, impl->spec().shape, impl->spec().placements});
    rc.impls.push_back(impl);
    rc.tensors.push_back(t);
  };
  for (size_t i = 0; i < num_args; ++i) {
    const c10::IValue& v = args[i];
    if (v.isTensor()) {
      const at::Tensor& t = v.toTensor();
      const bool writes = static_cast<int64_t>(i) != written_arg &&
          writes_argument(op, entry, args, i);
      if (auto* impl = get_dtensor_impl(t)) {
        const auto index = static_cast<int64_t>(call.operands.size());
        if (static_cast<int64_t>(i) == written_arg) {
          rc.written = index;
        } else if (writes) {
          rc.kept.push_back(index);
        }
        add(t, impl, i, -1);
      } else if (t.defined()) {
        if (writes) {
          fail_no_rule(
              op,
              scan,
              "the op writes a plain tensor argument; on a sharded call it must be a DTensor");
        }
        ++call.plain_tensors;
      }
    } else if (v.isTensorList()) {
      // cat/stack: every element is an operand of its own; plain elements
      // (even scalar-like ones) have no placement to decide.
      int64_t k = 0;
      for (const at::Tensor& t : v.toTensorList()) {
        auto* impl = get_dtensor_impl(t);
        if (impl == nullptr) {
          fail_no_rule(
              op, scan, "a tensor list mixing DTensors and plain tensors");
        }
        add(t, impl, i, k++);
      }
    } else if (v.isList()) {
      // Tensor?[] (indices): each DTensor element is an operand at its
      // position; a plain (scalar-like) one stays as it is.
      const auto list = v.toListRef();
      for (size_t k = 0; k < list.size(); ++k) {
        if (!list[k].isTensor() || !list[k].toTensor().defined()) {
          continue;
        }
        const at::Tensor& t = list[k].toTensor();
        if (auto* impl = get_dtensor_impl(t)) {
          add(t, impl, i, static_cast<int64_t>(k));
        } else {
          ++call.plain_tensors;
        }
      }
    }
  }
  return rc;
}

// A Tensor[] result (split, unbind) holds as many outputs as the rule gives;
// a rule counts every result (_local_scalar_dense's Scalar) or only the
// tensors (_fused_sdp_choice's int is none).
bool check_output_count(
    const c10::OperatorHandle& op,
    const std::string& name,
    const ops::Decision& decision) {
  const auto& returns = op.schema().returns();
  const bool list_result = returns.size() == 1 &&
      returns[0].type()->kind() == c10::TypeKind::ListType;
  size_t tensor_returns = 0;
  for (const auto& r : returns) {
    tensor_returns += r.type()->kind() == c10::TypeKind::TensorType;
  }
  TORCH_CHECK(
      list_result || decision.output_shapes.size() == returns.size() ||
          decision.output_shapes.size() == tensor_returns,
      name,
      ": the sharding rule gives ",
      decision.output_shapes.size(),
      " outputs, the op has ",
      tensor_returns);
  return list_result;
}

// Redistributes each operand to its decided placements and puts the locals
// on the stack (Tensor[] arguments as lists of locals). An operand that
// stays put is recorded in `originals`: a result that is its local is the
// caller's tensor (in-place).
std::vector<at::Tensor> place_locals(
    const RuleCall& rc,
    const ops::Decision& decision,
    torch::jit::Stack* stack,
    size_t args_begin,
    Originals& originals) {
  const auto& operands = rc.call.operands;
  std::vector<at::Tensor> locals;
  locals.reserve(operands.size());
  for (size_t k = 0; k < operands.size(); ++k) {
    const DTensorImpl* impl = rc.impls[k];
    at::Tensor local = impl->local();
    if (!(decision.input_targets[k] == impl->spec().placements)) {
      local = detail::redistribute_local(
          local, impl->spec(), decision.input_targets[k]);
    } else {
      originals.emplace_back(local.unsafeGetTensorImpl(), rc.tensors[k]);
    }
    locals.push_back(local);
    if (operands[k].list_index < 0) {
      (*stack)[args_begin + operands[k].arg_index] = local;
    }
  }
  for (size_t k = 0; k < operands.size();) {
    const size_t arg = operands[k].arg_index;
    if (operands[k].list_index < 0) {
      ++k;
      continue;
    }
    c10::IValue& slot = (*stack)[args_begin + arg];
    if (slot.isTensorList()) {
      c10::List<at::Tensor> list;
      for (; k < operands.size() && operands[k].arg_index == arg; ++k) {
        list.push_back(locals[k]);
      }
      slot = list;
      continue;
    }
    // Tensor?[]: Nones and plain elements stay in their places.
    c10::List<c10::optional<at::Tensor>> list;
    for (const c10::IValue& e : slot.toListRef()) {
      list.push_back(
          e.isTensor() ? c10::optional<at::Tensor>(e.toTensor())
                       : c10::nullopt);
    }
    for (; k < operands.size() && operands[k].arg_index == arg; ++k) {
      list.set(static_cast<size_t>(operands[k].list_index), locals[k]);
    }
    slot = list;
  }
  return locals;
}

// The rule's own local runner in place of the op; out tensors receive the
// results.
void run_rule_locally(
    const RuleCall& rc,
    const ops::Decision& decision,
    const std::vector<at::Tensor>& locals,
    const std::vector<ops::Shape>& local_shapes,
    const OutTensors& outs_to_write,
    const DeviceMesh& mesh,
    torch::jit::Stack* stack,
    size_t all_args) {
  std::vector<at::Tensor> outs;
  {
    at::AutoDispatchBelowADInplaceOrView guard;
    std::vector<ops::Shape> input_shapes;
    input_shapes.reserve(rc.call.operands.size());
    for (const auto& o : rc.call.operands) {
      input_shapes.push_back(o.shape);
    }
    ops::LocalContext ctx{
        &local_shapes,
        &input_shapes,
        &decision.input_targets,
        &mesh,
        rc.call.args};
    outs = decision.run_local(locals, ctx);
  }
  for (auto& t : outs) {
    for (const auto& in : locals) {
      if (rc.written >= 0) {
        break; // an in-place op returns its self
      }
      if (t.unsafeGetTensorImpl() == in.unsafeGetTensorImpl()) {
        t = t.alias(); // a view op's result must be a new tensor, even when
                       // nothing changed
      }
    }
  }
  for (size_t k = 0; k < outs_to_write.impls.size() && k < outs.size(); ++k) {
    at::Tensor local = outs_to_write.impls[k]->local();
    at::AutoDispatchBelowADInplaceOrView guard;
    local.resize_(outs[k].sizes()).copy_(outs[k]);
    outs[k] = local;
  }
  torch::jit::drop(*stack, all_args);
  for (auto& t : outs) {
    stack->emplace_back(std::move(t));
  }
}

} // namespace

void run_with_rule(
    const c10::OperatorHandle& op,
    const std::string& name,
    const ops::RuleEntry& entry,
    torch::jit::Stack* stack,
    size_t args_begin,
    const ArgScan& scan) {
  const DeviceMesh mesh = scan.first->spec().mesh;
  bool other_write = false;
  const int64_t written_arg = written_argument(op, other_write);
  if (other_write && entry.out_args == 0 && writes_kwarg_only(op)) {
    fail_no_rule(
        op,
        scan,
        "out= variants run on all-Replicate operands only; call the functional op");
  }
  // An out= form: the rule sees the functional arguments; the out tensors
  // (the trailing arguments) keep their placements.
  const size_t all_args = stack->size() - args_begin;
  const size_t num_args = all_args - entry.out_args;
  const c10::IValue* args = stack->data() + args_begin;
  const OutTensors out = out_tensors(op, scan, args, num_args, all_args);
  const RuleCall rc =
      collect_operands(op, entry, scan, args, num_args, written_arg);
  auto decision = ops::decide(
      name,
      entry,
      rc.call,
      mesh,
      ops::Fixed{rc.written, out.placements, rc.kept});
  const bool list_result = check_output_count(op, name, *decision);

  Originals originals;
  const std::vector<at::Tensor> locals =
      place_locals(rc, *decision, stack, args_begin, originals);
  // The out tensors' local blocks receive the local results (their
  // placements are the decided ones).
  for (size_t k = 0; k < out.impls.size(); ++k) {
    const at::Tensor& local = out.impls[k]->local();
    originals.emplace_back(
        local.unsafeGetTensorImpl(), args[num_args + k].toTensor());
    (*stack)[args_begin + num_args + k] = local;
  }
  // Rules that leave the global shapes to the local results give none to
  // check the results against (their local shapes are the op's own).
  std::vector<ops::Shape> local_shapes;
  local_shapes.reserve(decision->output_shapes.size());
  for (size_t o = 0; o < decision->output_shapes.size(); ++o) {
    local_shapes.push_back(
        decision->shapes_from_locals ? ops::Shape{}
                                     : detail::local_shape(
                                           decision->output_shapes[o],
                                           decision->output_placements[o],
                                           mesh,
                                           mesh.coordinate()));
  }
  // Output o's global shape, given its local result.
  auto global_shape = [&](size_t o, const at::Tensor& local) -> ops::Shape {
    if (!decision->shapes_from_locals) {
      return decision->output_shapes[o];
    }
    return ops::global_shape_of(
        o, local, decision->output_placements[o], *decision, rc.call);
  };
  if (decision->run_local) {
    run_rule_locally(
        rc, *decision, locals, local_shapes, out, mesh, stack, all_args);
  } else {
    run_below_autograd(op, stack);
  }
  if (list_result) {
    const size_t got =
        stack->back().isTensorList() ? stack->back().toTensorList().size() : 1;
    TORCH_CHECK(
        got == local_shapes.size(),
        name,
        ": the op returned ",
        got,
        " tensors, the sharding rule gives ",
        local_shapes.size(),
        " (a bug in the rule; please report it)");
  }
  // ATen resizes an out tensor of another shape: its DTensor follows.
  for (size_t k = 0; k < out.impls.size(); ++k) {
    ops::Shape shape = global_shape(k, out.impls[k]->local());
    if (!(out.impls[k]->spec().shape == shape)) {
      out.impls[k]->set_local_and_spec(
          out.impls[k]->local(),
          DTensorSpec{mesh, decision->output_placements[k], std::move(shape)});
    }
  }
  wrap_results(op, stack, originals, [&](size_t o, const at::Tensor& res) {
    TORCH_CHECK(
        o < local_shapes.size(),
        name,
        ": the op returned more tensors than the sharding rule gives (",
        local_shapes.size(),
        "; a bug in the rule; please report it)");
    TORCH_CHECK(
        decision->shapes_from_locals ||
            res.sizes() == c10::IntArrayRef(local_shapes[o]),
        name,
        ": the local result has shape ",
        res.sizes(),
        " but the sharding rule expects ",
        c10::IntArrayRef(local_shapes[o]),
        " for ",
        to_string(decision->output_placements[o]),
        " (a bug in the rule; please report it)");
    return DTensorSpec{
        mesh, decision->output_placements[o], global_shape(o, res)};
  });
}

} // namespace dispatch
} // namespace meshguard
