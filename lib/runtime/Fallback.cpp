// The dispatcher kernel for DTensors: every operator called with a DTensor
// argument lands here (via DispatchKey::PrivateUse2), is checked against the
// few sharding rules we know to be exact, runs on the local tensors and has
// its results wrapped again. Anything else is an error: never a wrong
// answer computed silently.

#include <atomic>
#include <mutex>
#include <sstream>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/ivalue.h>
#include <ATen/core/stack.h>
#include <c10/core/impl/LocalDispatchKeySet.h>
#include <c10/core/InferenceMode.h>

#include <meshguard/runtime/DTensorImpl.h>

namespace meshguard {

namespace {

// Ops that act element by element with no size arguments: on operands with
// equal specs they run shard by shard. (libtorch 1.13 has no pointwise tag.)
const std::unordered_set<std::string>& pointwise_ops() {
  static const std::unordered_set<std::string> ops = {
      "abs", "acos", "acosh", "add", "addcdiv", "addcmul", "alias", "asin", "asinh", "atan", "atan2", "atanh",
      "bitwise_and", "bitwise_not", "bitwise_or", "bitwise_xor", "ceil", "clamp", "clamp_max", "clamp_min",
      "clamp_min", "clip", "clone", "copy", "cos", "cosh", "detach", "div", "elu", "elu_backward", "empty_like",
      "eq", "erf", "erfc", "erfinv", "exp", "exp2", "expm1", "fill", "floor", "floor_divide", "fmod",
      "frac", "full_like", "ge", "gelu", "gelu_backward", "gt", "hardsigmoid", "hardsigmoid_backward",
      "hardswish", "hardswish_backward", "hardtanh", "hardtanh_backward", "isinf", "isnan", "le",
      "leaky_relu", "leaky_relu_backward", "lerp", "log", "log10", "log1p", "log2", "logical_and",
      "logical_not", "logical_or", "logical_xor", "logit", "lt", "masked_fill", "maximum", "minimum", "mish",
      "mul", "nan_to_num", "ne", "neg", "ones_like", "pow", "rand_like", "randn_like", "reciprocal", "relu",
      "remainder", "round", "rsqrt", "rsub", "sigmoid", "sigmoid_backward", "sign", "silu", "silu_backward",
      "sin", "sinh", "softplus", "softplus_backward", "sqrt", "square", "sub", "tan", "tanh",
      "tanh_backward", "threshold", "threshold_backward", "true_divide", "trunc", "where", "xlogy",
      "zero", "zeros_like", "_to_copy", "lift_fresh", "positive",
  };
  return ops;
}

// On Partial operands only these keep the reduction exact: sums of partial
// sums, scaling of a partial sum, copies, zeros.
const std::unordered_set<std::string>& partial_linear_ops() {
  static const std::unordered_set<std::string> ops = {"add", "sub", "rsub"};
  return ops;
}
const std::unordered_set<std::string>& partial_scale_ops() {
  static const std::unordered_set<std::string> ops = {"mul", "div", "true_divide"};
  return ops;
}
const std::unordered_set<std::string>& partial_copy_ops() {
  static const std::unordered_set<std::string> ops = {
      "alias", "clone", "copy", "detach", "neg", "zero", "zeros_like", "_to_copy", "empty_like", "lift_fresh", "positive"};
  return ops;
}

// "aten::add_" -> "add"
std::string base_name(const c10::OperatorHandle& op) {
  std::string name = op.schema().name();
  auto pos = name.find("::");
  if (pos != std::string::npos) {
    name = name.substr(pos + 2);
  }
  if (!name.empty() && name.back() == '_' && name != "_") {
    name.pop_back();
  }
  return name;
}

std::string op_display_name(const c10::OperatorHandle& op) {
  const auto& schema = op.schema();
  return schema.name() + (schema.overload_name().empty() ? std::string(".default") : "." + schema.overload_name());
}

bool scalar_like(const at::Tensor& t) {
  return t.dim() == 0 || t.numel() == 1;
}

struct ArgScan {
  std::vector<const DTensorImpl*> dtensors;
  std::vector<at::Tensor> plain;
  const DTensorImpl* first = nullptr;
};

template <typename F>
void for_each_tensor(c10::IValue& v, F&& f) {
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

c10::IValue unwrap(const c10::IValue& v, std::unordered_map<c10::TensorImpl*, at::Tensor>& originals) {
  auto local_of = [&](const at::Tensor& t) -> at::Tensor {
    if (auto* impl = get_dtensor_impl(t)) {
      originals.emplace(impl->local().unsafeGetTensorImpl(), t);
      return impl->local();
    }
    if (t.defined()) {
      originals.emplace(t.unsafeGetTensorImpl(), t);
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
        out.push_back(e.isTensor() ? c10::optional<at::Tensor>(local_of(e.toTensor())) : c10::nullopt);
      }
      return out;
    }
  }
  return v;
}

[[noreturn]] void fail_mixed(const c10::OperatorHandle& op) {
  TORCH_CHECK(
      false,
      op_display_name(op),
      ": got mixed at::Tensor and DTensor, need to convert all at::Tensor to DTensor before calling "
      "distributed operators!");
}

[[noreturn]] void fail_no_rule(const c10::OperatorHandle& op, const ArgScan& scan, const char* why) {
  std::ostringstream os;
  os << op_display_name(op) << ": no sharding rule for DTensor operands with placements ";
  for (size_t i = 0; i < scan.dtensors.size(); ++i) {
    os << (i ? ", " : "") << to_string(scan.dtensors[i]->spec().placements);
  }
  os << " (" << why
     << "). meshguard runs pointwise ops on operands with equal specs and any op on all-Replicate operands; "
        "redistribute the operands (e.g. to Replicate) first.";
  TORCH_CHECK(false, os.str());
}

// What the outputs become: Replicate with their own shape, or the operands' spec.
enum class OutputRule { kReplicate, kSameSpec };

OutputRule choose_rule(const c10::OperatorHandle& op, const ArgScan& scan) {
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
  for (const auto& p : scan.plain) {
    if (!scalar_like(p)) {
      fail_mixed(op);
    }
  }
  bool all_replicate = true;
  bool equal_specs = true;
  for (const auto* d : scan.dtensors) {
    all_replicate = all_replicate && d->spec().all_replicate();
    equal_specs = equal_specs && d->spec() == spec;
  }
  if (all_replicate) {
    return OutputRule::kReplicate;
  }
  const std::string name = base_name(op);
  if (!pointwise_ops().count(name)) {
    fail_no_rule(op, scan, "not a pointwise op");
  }
  if (!equal_specs) {
    fail_no_rule(op, scan, "pointwise operands need equal shapes and placements");
  }
  if (spec.has_partial()) {
    bool ok = partial_copy_ops().count(name) > 0;
    if (partial_linear_ops().count(name)) {
      // Partial + Partial only: adding a scalar would add it on every rank.
      ok = scan.plain.empty() && scan.dtensors.size() >= 2;
    }
    if (partial_scale_ops().count(name)) {
      bool linear_reduce = true;
      for (const auto& p : spec.placements) {
        if (is_partial(p)) {
          auto r = std::get<Partial>(p).reduce_op;
          linear_reduce = linear_reduce && (r == ReduceOp::SUM || r == ReduceOp::AVG);
        }
      }
      // Only the dividend / one factor may be partial.
      ok = linear_reduce && scan.dtensors.size() == 1;
    }
    if (!ok) {
      fail_no_rule(op, scan, "the op is not linear in a Partial operand; redistribute to Replicate first");
    }
  }
  return OutputRule::kSameSpec;
}

void dtensor_kernel(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  const auto num_args = op.schema().arguments().size();
  const auto args_begin = stack->size() - num_args;

  ArgScan scan;
  for (size_t i = args_begin; i < stack->size(); ++i) {
    for_each_tensor((*stack)[i], [&](const at::Tensor& t) {
      if (!t.defined()) {
        return;
      }
      if (auto* impl = get_dtensor_impl(t)) {
        scan.dtensors.push_back(impl);
        if (!scan.first) {
          scan.first = impl;
        }
      } else {
        scan.plain.push_back(t);
      }
    });
  }
  TORCH_CHECK(scan.first != nullptr, op_display_name(op), ": reached meshguard's DTensor kernel without a DTensor");
  const OutputRule rule = choose_rule(op, scan);
  const DTensorSpec spec = scan.first->spec();

  std::unordered_map<c10::TensorImpl*, at::Tensor> originals;
  for (size_t i = args_begin; i < stack->size(); ++i) {
    (*stack)[i] = unwrap((*stack)[i], originals);
  }
  {
    // Below autograd: the wrapper already recorded what autograd needs.
    at::AutoDispatchBelowADInplaceOrView guard;
    op.callBoxed(stack);
  }

  const auto num_returns = op.schema().returns().size();
  const auto rets_begin = stack->size() - num_returns;
  auto wrap = [&](const at::Tensor& out) -> at::Tensor {
    if (!out.defined()) {
      return out;
    }
    auto it = originals.find(out.unsafeGetTensorImpl());
    if (it != originals.end()) {
      return it->second; // in-place or out= result: the caller's tensor
    }
    if (rule == OutputRule::kReplicate) {
      DTensorSpec out_spec{spec.mesh, Placements(spec.mesh.ndim(), Replicate{}), out.sizes().vec()};
      return make_dtensor(out, std::move(out_spec));
    }
    TORCH_CHECK(
        out.sizes() == scan.first->local().sizes(),
        op_display_name(op),
        ": a pointwise result changed shape on a sharded DTensor; redistribute to Replicate first");
    return make_dtensor(out, spec);
  };
  for (size_t i = rets_begin; i < stack->size(); ++i) {
    c10::IValue& v = (*stack)[i];
    if (v.isTensor()) {
      v = wrap(v.toTensor());
    } else if (v.isTensorList()) {
      c10::List<at::Tensor> out;
      for (const at::Tensor& t : v.toTensorList()) {
        out.push_back(wrap(t));
      }
      v = out;
    }
  }
}

// Registration. A backend fallback alone is not enough: composite kernels
// take precedence over it and then touch the storage of the storage-less
// impl. So every operator gets a direct kernel, except those with a
// CompositeImplicitAutograd kernel: they must decompose (into ops that reach
// us) for autograd to record them.
std::mutex registry_mutex;
std::vector<c10::OperatorName>* pending = new std::vector<c10::OperatorName>();
std::atomic<bool> has_pending{false};

class Listener final : public c10::OpRegistrationListener {
 public:
  void onOperatorRegistered(const c10::OperatorHandle& op) override {
    // The dispatcher holds its lock here: only queue the name.
    std::lock_guard<std::mutex> lock(registry_mutex);
    pending->push_back(op.operator_name());
    has_pending.store(true);
  }
  void onOperatorDeregistered(const c10::OperatorHandle&) override {}
};

void register_one(const c10::OperatorName& name, std::unordered_set<std::string>& done,
                  std::vector<c10::RegistrationHandleRAII>& handles) {
  auto& dispatcher = c10::Dispatcher::singleton();
  const std::string key = c10::toString(name);
  if (done.count(key)) {
    return;
  }
  auto handle = dispatcher.findOp(name);
  if (!handle || !handle->hasSchema()) {
    return;
  }
  done.insert(key);
  if (handle->hasKernelForDispatchKey(c10::DispatchKey::CompositeImplicitAutograd) ||
      handle->hasKernelForDispatchKey(c10::DispatchKey::PrivateUse2)) {
    return;
  }
  handles.push_back(dispatcher.registerImpl(
      name,
      c10::DispatchKey::PrivateUse2,
      c10::KernelFunction::makeFromBoxedFunction<&dtensor_kernel>(),
      c10::nullopt,
      nullptr,
      "meshguard DTensor kernel"));
}

} // namespace

void register_dtensor_fallback() {
  // Kept for the life of the process (reachable, so not a leak).
  static auto* done = new std::unordered_set<std::string>();
  static auto* handles = new std::vector<c10::RegistrationHandleRAII>();
  static std::once_flag once;
  std::call_once(once, [] {
    auto& dispatcher = c10::Dispatcher::singleton();
    handles->push_back(dispatcher.registerFallback(
        c10::DispatchKey::PrivateUse2,
        c10::KernelFunction::makeFromBoxedFunction<&dtensor_kernel>(),
        "meshguard DTensor fallback"));
    {
      std::lock_guard<std::mutex> lock(registry_mutex);
      for (const auto& name : dispatcher.getAllOpNames()) {
        register_one(name, *done, *handles);
      }
    }
    // Replays every known op into `pending` too; register_one skips repeats.
    handles->push_back(dispatcher.addRegistrationListener(std::make_unique<Listener>()));
  });
  if (has_pending.load()) {
    std::lock_guard<std::mutex> lock(registry_mutex);
    auto names = std::move(*pending);
    pending->clear();
    has_pending.store(false);
    for (const auto& name : names) {
      register_one(name, *done, *handles);
    }
  }
}

} // namespace meshguard
