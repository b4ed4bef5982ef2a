#include "ops/Audit.h"

#include <array>
#include <atomic>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include <ATen/Functions.h>
#include <ATen/core/ivalue.h>
#include <c10/util/Exception.h>
#include <torch/csrc/autograd/grad_mode.h>

#include <meshguard/runtime/DTensor.h>
#include <meshguard/runtime/Placement.h>

#include "ConsistencyCheck.h"
#include "Internal.h"
#include "ops/IValueTensors.h"

namespace meshguard {
namespace ops {

namespace {

// MESHGUARD_AUDIT_EVERY: a positive count; anything else is an error (at
// the first audited op, where it can be thrown as one).
int64_t audit_every() {
  const char* v = std::getenv("MESHGUARD_AUDIT_EVERY");
  if (v == nullptr || *v == '\0') {
    return 1;
  }
  char* end = nullptr;
  const long long n = std::strtoll(v, &end, 10);
  TORCH_CHECK(
      *end == '\0' && n > 0,
      "MESHGUARD_AUDIT_EVERY='",
      v,
      "': expected a positive number of ops (1 audits every op)");
  return n;
}

std::vector<std::string> audit_ops() {
  std::vector<std::string> ops;
  const char* v = std::getenv("MESHGUARD_AUDIT_OPS");
  std::stringstream in(v ? v : "");
  for (std::string op; std::getline(in, op, ',');) {
    if (!op.empty()) {
      ops.push_back(op);
    }
  }
  return ops;
}

std::string full_name(const c10::OperatorHandle& op) {
  const auto& n = op.operator_name();
  return n.name + "." + (n.overload_name.empty() ? "default" : n.overload_name);
}

// Ops whose result is not a function of their operands: random ones, and
// uninitialized memory. Comparing them would report noise.
bool not_a_function(const std::string& name) {
  static constexpr std::array kWords = {
      "rand",
      "dropout",
      "bernoulli",
      "normal",
      "uniform",
      "exponential",
      "cauchy",
      "geometric",
      "random",
      "multinomial",
      "poisson",
      "empty"};
  for (const char* w : kWords) {
    if (name.find(w) != std::string::npos) {
      return true;
    }
  }
  return false;
}

bool sampled(const std::string& name) {
  static const std::vector<std::string> only = audit_ops();
  if (!only.empty()) {
    bool named = false;
    for (const auto& o : only) {
      named = named || name == o || name.rfind(o + ".", 0) == 0;
    }
    if (!named) {
      return false;
    }
  }
  static const int64_t every = audit_every();
  static std::atomic<int64_t> calls{0};
  return calls.fetch_add(1, std::memory_order_relaxed) % every == 0;
}

// Set while the audit gathers and runs its reference: the ops it runs on
// DTensors (inside full_tensor) are not audited themselves.
thread_local bool auditing = false;

std::atomic<int64_t> compared{0};

struct AuditingScope {
  AuditingScope() {
    auditing = true;
  }
  ~AuditingScope() {
    auditing = false;
  }
};

void tensors_of(const c10::IValue& v, std::vector<at::Tensor>& out) {
  for_each_tensor(v, [&](const at::Tensor& t) { out.push_back(t); });
}

// A copy of an argument with each DTensor replaced by its full value (a
// fresh tensor: an in-place reference op must not write the DTensor).
c10::IValue gathered(const c10::IValue& v) {
  auto full = [](const at::Tensor& t) {
    return t.defined() && is_dtensor(t) ? full_tensor(t).clone() : t;
  };
  if (v.isTensor()) {
    return full(v.toTensor());
  }
  if (v.isTensorList()) {
    c10::List<at::Tensor> out;
    for (const at::Tensor& t : v.toTensorList()) {
      out.push_back(full(t));
    }
    return out;
  }
  if (v.isList()) {
    c10::impl::GenericList out(v.toList().elementType());
    for (const c10::IValue& e : v.toList()) {
      out.push_back(gathered(e));
    }
    return out;
  }
  return v;
}

std::string operand_placements(
    const torch::jit::Stack& stack,
    size_t args_begin) {
  std::vector<at::Tensor> ts;
  for (size_t i = args_begin; i < stack.size(); ++i) {
    tensors_of(stack[i], ts);
  }
  std::ostringstream os;
  bool first = true;
  for (const auto& t : ts) {
    if (t.defined() && is_dtensor(t)) {
      os << (first ? "" : ", ") << to_string(*placements_of(t));
      first = false;
    }
  }
  return os.str();
}

// Why `got` (the result by the rule, gathered) is not `want` (the op on
// full tensors); empty when they agree.
std::string difference(const at::Tensor& got, const at::Tensor& want) {
  std::ostringstream os;
  if (got.defined() != want.defined()) {
    os << "one is undefined";
  } else if (!got.defined()) {
    return "";
  } else if (got.sizes() != want.sizes()) {
    os << "shape " << got.sizes() << " instead of " << want.sizes();
  } else if (got.scalar_type() != want.scalar_type()) {
    os << "dtype " << c10::toString(got.scalar_type()) << " instead of "
       << c10::toString(want.scalar_type());
  } else if (at::isFloatingType(got.scalar_type())) {
    // Reductions over ranks add in another order than one process does.
    const bool half = got.element_size() < 4;
    const double rtol = half ? 1e-2 : 1e-4, atol = half ? 1e-2 : 1e-5;
    if (!at::allclose(got, want, rtol, atol, /*equal_nan=*/true)) {
      os << "max abs difference "
         << (got.to(at::kDouble) - want.to(at::kDouble))
                .abs()
                .nan_to_num(0.0)
                .max()
                .item<double>();
    }
  } else if (!at::equal(got, want)) {
    os << "the values differ";
  }
  return os.str();
}

std::string caller() {
  const detail::UserCallInfo* call = detail::current_user_call();
  if (call == nullptr || !call->where.file) {
    return " (called with no meshguard call site: the C++ stack trace, "
           "TORCH_SHOW_CPP_STACKTRACES=1, shows the caller)";
  }
  std::ostringstream os;
  os << " (in " << call->api << " at " << call->where.file << ":"
     << call->where.line << ")";
  return os.str();
}

} // namespace

const bool audit_enabled = detail::env_flag("MESHGUARD_AUDIT");

int64_t audited_ops() {
  return compared.load(std::memory_order_relaxed);
}

void audited_run(
    const c10::OperatorHandle& op,
    torch::jit::Stack* stack,
    size_t args_begin,
    const std::function<void()>& run) {
  const std::string name = full_name(op);
  if (auditing || not_a_function(name) || !sampled(name)) {
    run();
    return;
  }
  std::vector<c10::IValue> reference;
  const std::string placements = operand_placements(*stack, args_begin);
  {
    AuditingScope scope;
    at::NoGradGuard no_grad;
    for (size_t i = args_begin; i < stack->size(); ++i) {
      reference.push_back(gathered((*stack)[i]));
    }
  }
  run();
  AuditingScope scope;
  at::NoGradGuard no_grad;
  std::vector<at::Tensor> got;
  for (size_t i = args_begin; i < stack->size(); ++i) {
    tensors_of((*stack)[i], got);
  }
  std::string result_placements;
  for (auto& t : got) {
    if (t.defined() && is_dtensor(t)) {
      result_placements += (result_placements.empty() ? "" : ", ") +
          to_string(*placements_of(t));
      t = full_tensor(t);
    }
  }
  op.callBoxed(&reference);
  std::vector<at::Tensor> want;
  for (const auto& v : reference) {
    tensors_of(v, want);
  }
  TORCH_CHECK(
      got.size() == want.size(),
      "meshguard audit: ",
      name,
      " gave ",
      got.size(),
      " tensors by its sharding rule and ",
      want.size(),
      " on the full tensors",
      caller());
  compared.fetch_add(1, std::memory_order_relaxed);
  for (size_t i = 0; i < got.size(); ++i) {
    const std::string why = difference(got[i], want[i]);
    TORCH_CHECK(
        why.empty(),
        "meshguard audit: ",
        name,
        " on operands with placements ",
        placements,
        " gave ",
        result_placements.empty() ? "a plain result" : result_placements,
        " whose value differs from ",
        name,
        " on the full tensors (output ",
        i,
        ": ",
        why,
        ")",
        caller(),
        ". Its sharding rule is wrong for these placements; please report "
        "it (docs/runtime/audit.md).");
  }
}

} // namespace ops
} // namespace meshguard
