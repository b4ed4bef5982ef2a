// The dispatcher kernel for DTensors: every operator called with a DTensor
// argument lands here (via DispatchKey::PrivateUse2). All-Replicate operands
// run any op; otherwise the op's sharding rule (lib/runtime/ops/) decides how
// to redistribute the operands, the op runs on the local tensors and its
// results are wrapped again. An op without a rule is an error: never a wrong
// answer computed silently.

#include <atomic>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/ivalue.h>
#include <ATen/core/stack.h>
#include <c10/core/InferenceMode.h>
#include <c10/core/impl/LocalDispatchKeySet.h>
#include <c10/util/SmallVector.h>

#include <meshguard/runtime/DTensorImpl.h>

#include "ConsistencyCheck.h"
#include "Internal.h"
#include "ops/Audit.h"
#include "ops/CallPolicy.h"
#include "ops/Dispatch.h"
#include "ops/IValueTensors.h"
#include "ops/Propagator.h"
#include "ops/RuleTable.h"

namespace meshguard {

namespace {

using ops::for_each_tensor;

std::string op_display_name(const c10::OperatorHandle& op) {
  const auto& schema = op.schema();
  return schema.name() +
      (schema.overload_name().empty() ? std::string(".default")
                                      : "." + schema.overload_name());
}

bool scalar_like(const at::Tensor& t) {
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
template <typename F>
bool replace_tensors(c10::IValue& v, F&& f) {
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

// The callers' tensors, by the impl the op sees (its in-place/out= results
// are those). A handful per call: a vector, where a hash map would allocate
// a node per entry on every op call. The first entry for an impl wins.
using Originals = c10::SmallVector<std::pair<c10::TensorImpl*, at::Tensor>, 8>;

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

// Puts the op's results back on the stack as DTensors: the caller's own
// tensor for in-place/out= results, else `spec_of(i, local)`.
template <typename SpecOf>
void wrap_results(
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

void run_below_autograd(
    const c10::OperatorHandle& op,
    torch::jit::Stack* stack) {
  // Below autograd: the wrapper already recorded what autograd needs.
  at::AutoDispatchBelowADInplaceOrView guard;
  op.callBoxed(stack);
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

ArgScan scan_operands(const torch::jit::Stack& stack, size_t args_begin);

int64_t written_argument(const c10::OperatorHandle& op, bool& other_write);

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

// An op of the rule table on sharded/Partial operands: ask the propagator,
// redistribute the operands, run locally, wrap with the decided specs.
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
  if (other_write && entry.out_args == 0) {
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
  c10::SmallVector<const Placements*, 2> out_placements;
  c10::SmallVector<DTensorImpl*, 2> out_impls;
  for (size_t i = num_args; i < all_args; ++i) {
    DTensorImpl* impl =
        args[i].isTensor() ? get_dtensor_impl(args[i].toTensor()) : nullptr;
    if (impl == nullptr) {
      fail_no_rule(
          op,
          scan,
          "the out= tensor of a sharded call must be a DTensor (of the placements the result gets)");
    }
    out_placements.push_back(&impl->spec().placements);
    out_impls.push_back(impl);
  }
  ops::CallInfo call;
  call.args = args;
  call.num_args = num_args;
  call.mesh_size = mesh.size();
  call.mesh_shape = mesh.shape();
  int64_t written = -1;
  call.operands.reserve(scan.dtensors.size());
  c10::SmallVector<const DTensorImpl*, 8> impls;
  c10::SmallVector<at::Tensor, 8> operand_tensors; // the callers' DTensors
  for (size_t i = 0; i < num_args; ++i) {
    const c10::IValue& v = args[i];
    if (v.isTensor()) {
      const at::Tensor& t = v.toTensor();
      if (auto* impl = get_dtensor_impl(t)) {
        if (static_cast<int64_t>(i) == written_arg) {
          written = static_cast<int64_t>(call.operands.size());
        }
        call.operands.push_back(
            ops::Operand{i, -1, impl->spec().shape, impl->spec().placements});
        impls.push_back(impl);
        operand_tensors.push_back(t);
      } else if (t.defined()) {
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
        call.operands.push_back(
            ops::Operand{i, k++, impl->spec().shape, impl->spec().placements});
        impls.push_back(impl);
        operand_tensors.push_back(t);
      }
    } else if (v.isList()) {
      bool has_tensor = false;
      for_each_tensor(args[i], [&](const at::Tensor& t) {
        has_tensor = has_tensor || t.defined();
      });
      if (has_tensor) {
        fail_no_rule(
            op,
            scan,
            "Tensor?[] operands (indices) run on all-Replicate operands only");
      }
    }
  }
  auto decision =
      ops::decide(name, entry, call, mesh, ops::Fixed{written, out_placements});
  // A Tensor[] result (split, unbind) holds as many outputs as the rule gives;
  // a rule counts every result (_local_scalar_dense's Scalar) or only the
  // tensors (_fused_sdp_choice's int is none).
  const auto& returns = op.schema().returns();
  const bool list_result = returns.size() == 1 &&
      returns[0].type()->kind() == c10::TypeKind::ListType;
  size_t tensor_returns = 0;
  for (const auto& r : returns) {
    tensor_returns += r.type()->kind() == c10::TypeKind::TensorType;
  }
  TORCH_CHECK(
      list_result || decision->output_shapes.size() == returns.size() ||
          decision->output_shapes.size() == tensor_returns,
      name,
      ": the sharding rule gives ",
      decision->output_shapes.size(),
      " outputs, the op has ",
      tensor_returns);

  Originals originals;
  std::vector<at::Tensor> locals;
  locals.reserve(call.operands.size());
  for (size_t k = 0; k < call.operands.size(); ++k) {
    const DTensorImpl* impl = impls[k];
    at::Tensor local = impl->local();
    if (!(decision->input_targets[k] == impl->spec().placements)) {
      local = detail::redistribute_local(
          local, impl->spec(), decision->input_targets[k]);
    } else {
      originals.emplace_back(local.unsafeGetTensorImpl(), operand_tensors[k]);
    }
    locals.push_back(local);
    if (call.operands[k].list_index < 0) {
      (*stack)[args_begin + call.operands[k].arg_index] = local;
    }
  }
  // Tensor[] arguments: the list again, of the (redistributed) locals.
  for (size_t k = 0; k < call.operands.size();) {
    const size_t arg = call.operands[k].arg_index;
    if (call.operands[k].list_index < 0) {
      ++k;
      continue;
    }
    c10::List<at::Tensor> list;
    for (; k < call.operands.size() && call.operands[k].arg_index == arg; ++k) {
      list.push_back(locals[k]);
    }
    (*stack)[args_begin + arg] = list;
  }
  // The out tensors' local blocks receive the local results (their
  // placements are the decided ones).
  for (size_t k = 0; k < out_impls.size(); ++k) {
    const at::Tensor& local = out_impls[k]->local();
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
        o, local, decision->output_placements[o], *decision, call);
  };
  if (decision->run_local) {
    std::vector<at::Tensor> outs;
    {
      at::AutoDispatchBelowADInplaceOrView guard;
      std::vector<ops::Shape> input_shapes;
      input_shapes.reserve(call.operands.size());
      for (const auto& o : call.operands) {
        input_shapes.push_back(o.shape);
      }
      ops::LocalContext ctx{
          &local_shapes, &input_shapes, &decision->input_targets, &mesh, args};
      outs = decision->run_local(locals, ctx);
    }
    for (auto& t : outs) {
      for (const auto& in : locals) {
        if (written >= 0) {
          break; // an in-place op returns its self
        }
        if (t.unsafeGetTensorImpl() == in.unsafeGetTensorImpl()) {
          t = t.alias(); // a view op's result must be a new tensor, even when
                         // nothing changed
        }
      }
    }
    for (size_t k = 0; k < out_impls.size() && k < outs.size(); ++k) {
      at::Tensor local = out_impls[k]->local();
      at::AutoDispatchBelowADInplaceOrView guard;
      local.resize_(outs[k].sizes()).copy_(outs[k]);
      outs[k] = local;
    }
    torch::jit::drop(*stack, all_args);
    for (auto& t : outs) {
      stack->emplace_back(std::move(t));
    }
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
  for (size_t k = 0; k < out_impls.size(); ++k) {
    ops::Shape shape = global_shape(k, out_impls[k]->local());
    if (!(out_impls[k]->spec().shape == shape)) {
      out_impls[k]->set_local_and_spec(
          out_impls[k]->local(),
          DTensorSpec{mesh, decision->output_placements[k], std::move(shape)});
    }
  }
  wrap_results(op, stack, originals, [&](size_t o, const at::Tensor& out) {
    TORCH_CHECK(
        o < local_shapes.size(),
        name,
        ": the op returned more tensors than the sharding rule gives (",
        local_shapes.size(),
        "; a bug in the rule; please report it)");
    TORCH_CHECK(
        decision->shapes_from_locals ||
            out.sizes() == c10::IntArrayRef(local_shapes[o]),
        name,
        ": the local result has shape ",
        out.sizes(),
        " but the sharding rule expects ",
        c10::IntArrayRef(local_shapes[o]),
        " for ",
        to_string(decision->output_placements[o]),
        " (a bug in the rule; please report it)");
    return DTensorSpec{
        mesh, decision->output_placements[o], global_shape(o, out)};
  });
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
