// Making and taking apart DTensors, plus the provenance side table that lets
// a "found no DeviceMesh" error say where a plain tensor came from.

#include <cstdlib>
#include <mutex>
#include <sstream>
#include <unordered_map>

#include <ATen/ATen.h>
#include <torch/csrc/autograd/custom_function.h>

#include <meshguard/runtime/DTensor.h>
#include <meshguard/runtime/DTensorImpl.h>
#include <meshguard/runtime/Errors.h>

#include "ConsistencyCheck.h"
#include "Internal.h"
#include "compat/TorchCompat.h"

namespace meshguard {

namespace {

// Provenance of plain tensors handed out by to_local()/full_tensor(), keyed
// by TensorImpl. Weak references notice when an address is reused.
struct ProvenanceEntry {
  c10::weak_intrusive_ptr<c10::TensorImpl> impl;
  std::string text;
};

struct ProvenanceTable {
  std::mutex mu;
  std::unordered_map<const c10::TensorImpl*, ProvenanceEntry> entries;
  size_t purge_at = 1024;
};

ProvenanceTable& provenance_table() {
  static auto* table = new ProvenanceTable();
  return *table;
}

std::atomic<int> replica_check_state{-1}; // -1: read the environment

DTensorSpec make_spec(
    const at::Tensor& local,
    const DeviceMesh& mesh,
    const Placements& placements,
    const std::optional<std::vector<int64_t>>& shape) {
  DTensorSpec spec{mesh, placements, local.sizes().vec()};
  if (shape) {
    if (shape->size() != spec.shape.size()) {
      throw PlacementError(
          "from_local: the global shape has a different number of dims than the local tensor");
    }
    spec.shape = *shape;
  } else {
    for (int64_t i = 0; i < mesh.ndim(); ++i) {
      if (auto* s = std::get_if<Shard>(&placements[i])) {
        spec.shape[s->dim] *= mesh.size(i);
      }
    }
  }
  return spec;
}

struct FromLocalFn : public torch::autograd::Function<FromLocalFn> {
  static at::Tensor forward(
      torch::autograd::AutogradContext* ctx,
      const at::Tensor& local,
      DTensorSpec spec) {
    ctx->saved_data["placements"] = detail::encode_placements(spec.placements);
    return make_dtensor(local.detach(), std::move(spec));
  }
  // As PyTorch's: the gradient is first laid out as the DTensor was made
  // (e.g. a Partial gradient of a Replicate input is all-reduced), so that
  // its local tensor is the local input's gradient; where it was made
  // Partial, the gradient is Replicate (PyTorch's is_backward rule).
  static torch::autograd::variable_list backward(
      torch::autograd::AutogradContext* ctx,
      torch::autograd::variable_list grads) {
    at::Tensor g = grads[0];
    if (auto* impl = get_dtensor_impl(g)) {
      Placements made = detail::decode_placements(
          ctx->saved_data["placements"].toIntVector());
      const Placements& now = impl->spec().placements;
      for (size_t d = 0; d < made.size(); ++d) {
        if (is_partial(made[d]) && !(now[d] == made[d])) {
          made[d] = Replicate{};
        }
      }
      g = now == made
          ? impl->local()
          : detail::redistribute_local(impl->local(), impl->spec(), made);
    }
    return {g, at::Tensor()};
  }
};

// The gradient of the local tensor is read with the DTensor's placements,
// or with `grad_placements` when given (PyTorch's to_local(grad_placements)).
struct ToLocalFn : public torch::autograd::Function<ToLocalFn> {
  static at::Tensor forward(
      torch::autograd::AutogradContext* ctx,
      const at::Tensor& dtensor,
      const std::optional<Placements>& grad_placements) {
    auto* impl = get_dtensor_impl(dtensor);
    ctx->saved_data["dtensor"] = dtensor.detach();
    if (grad_placements) {
      ctx->saved_data["grad_placements"] =
          detail::encode_placements(*grad_placements);
    }
    return impl->local().alias();
  }
  static torch::autograd::variable_list backward(
      torch::autograd::AutogradContext* ctx,
      torch::autograd::variable_list grads) {
    const auto saved = ctx->saved_data["dtensor"].toTensor();
    DTensorSpec spec = get_dtensor_impl(saved)->spec();
    auto it = ctx->saved_data.find("grad_placements");
    if (it != ctx->saved_data.end()) {
      spec.placements = detail::decode_placements(it->second.toIntVector());
    }
    if (!grads[0].defined()) {
      return {at::Tensor(), at::Tensor()};
    }
    return {make_dtensor(grads[0].contiguous(), std::move(spec)), at::Tensor()};
  }
};

// PyTorch's check_tensor_meta: dtype, and the local shape unless the global
// shape was given, must agree on every rank. Every rank sees the whole table,
// so every rank raises together (none waits in a later collective).
void check_local_metadata(
    const at::Tensor& local,
    const DeviceMesh& mesh,
    bool check_shape) {
  int64_t shape_hash = 0;
  if (check_shape) {
    shape_hash = local.dim() + 1;
    for (auto s : local.sizes()) {
      shape_hash = shape_hash * 1000003 + s;
    }
  }
  at::Tensor meta = at::tensor(
      std::vector<int64_t>{
          static_cast<int64_t>(local.scalar_type()), shape_hash},
      at::TensorOptions().dtype(at::kLong).device(mesh.device()));
  const auto table = detail::all_gather_mesh(meta, mesh);
  const auto reference = table[0].cpu();
  std::ostringstream bad;
  for (size_t j = 1; j < table.size(); ++j) {
    if (!at::equal(table[j].cpu(), reference)) {
      bad << (bad.tellp() > 0 ? ", " : "") << "rank " << mesh.mesh()[j];
    }
  }
  if (bad.tellp() > 0) {
    throw PlacementError(
        "from_local(run_check=true): inconsistent tensor metadata across ranks: " +
        bad.str() + " hold(s) a local tensor whose dtype" +
        std::string(check_shape ? " or shape" : "") + " differs from rank " +
        std::to_string(mesh.mesh()[0]) + "'s (" +
        std::string(c10::toString(local.scalar_type())) + " here, " +
        c10::str(local.sizes()) +
        "). Pass the global shape for uneven shards.");
  }
}

DTensorImpl* require_dtensor(const at::Tensor& t, const char* fn) {
  auto* impl = get_dtensor_impl(t);
  if (impl == nullptr) {
    throw PlacementError(
        std::string(fn) +
        ": the argument is a plain at::Tensor, not a DTensor" +
        (provenance_of(t).empty()
             ? std::string()
             : " (it came from " + provenance_of(t) + ")"));
  }
  return impl;
}

} // namespace

namespace detail {

std::vector<at::Tensor> all_gather_mesh(
    const at::Tensor& values,
    const DeviceMesh& mesh) {
  // Innermost mesh dim first: each step gathers the rows gathered so far,
  // so the result is in row-major mesh order.
  at::Tensor rows = values.reshape({1, -1}).contiguous();
  for (int64_t d = mesh.ndim() - 1; d >= 0; --d) {
    const int64_t k = mesh.size(d);
    if (k == 1) {
      continue;
    }
    std::vector<at::Tensor> outputs;
    outputs.reserve(k);
    for (int64_t j = 0; j < k; ++j) {
      outputs.push_back(at::empty_like(rows));
    }
    compat::all_gather(mesh.get_group(d), outputs, rows, mesh.timeout());
    rows = at::cat(outputs, 0);
  }
  return rows.unbind(0);
}

void record_provenance(
    const at::Tensor& plain,
    const char* what,
    const char* file,
    int line) {
  auto& table = provenance_table();
  std::ostringstream text;
  text << what << " at " << (file ? file : "?") << ":" << line;
  std::lock_guard<std::mutex> lock(table.mu);
  if (table.entries.size() >= table.purge_at) {
    for (auto it = table.entries.begin(); it != table.entries.end();) {
      it = it->second.impl.expired() ? table.entries.erase(it) : std::next(it);
    }
    table.purge_at = std::max<size_t>(1024, 2 * table.entries.size());
  }
  auto* impl = plain.unsafeGetTensorImpl();
  table.entries.erase(impl);
  table.entries.emplace(
      impl,
      ProvenanceEntry{
          c10::weak_intrusive_ptr<c10::TensorImpl>(plain.getIntrusivePtr()),
          text.str()});
}

std::string describe_arg(const at::Tensor& t) {
  if (!t.defined()) {
    return "an undefined tensor";
  }
  std::ostringstream os;
  if (auto* impl = get_dtensor_impl(t)) {
    os << "a DTensor on " << impl->spec().mesh.to_string()
       << " with placements " << to_string(impl->spec().placements);
    return os.str();
  }
  os << "a plain at::Tensor " << t.sizes() << " (" << t.dtype() << ")";
  const auto origin = provenance_of(t);
  if (!origin.empty()) {
    os << " returned by " << origin;
  }
  return os.str();
}

} // namespace detail

std::string provenance_of(const at::Tensor& t) {
  if (!t.defined()) {
    return {};
  }
  auto& table = provenance_table();
  std::lock_guard<std::mutex> lock(table.mu);
  auto it = table.entries.find(t.unsafeGetTensorImpl());
  if (it == table.entries.end()) {
    return {};
  }
  auto alive = it->second.impl.lock();
  if (alive.get() != t.unsafeGetTensorImpl()) {
    return {};
  }
  return it->second.text;
}

bool replica_check_enabled() {
  int state = replica_check_state.load();
  if (state < 0) {
    const char* env = std::getenv("MESHGUARD_CHECK_REPLICAS");
    state = (env != nullptr && std::string(env) != "0" && *env != '\0') ? 1 : 0;
    replica_check_state.store(state);
  }
  return state == 1;
}

void set_replica_check(bool enabled) {
  replica_check_state.store(enabled ? 1 : 0);
}

void check_replicas(
    const at::Tensor& local,
    const DeviceMesh& mesh,
    const std::string& what,
    CallSite where) {
  detail::UserCall call("check_replicas", where, [&] {
    return what + " on " + mesh.to_string();
  });
  // Checksums in double: the plain and a position-weighted sum of the
  // finite values, and the same of the non-finite ones' kinds (NaN 1, +inf
  // 2, -inf 3), so equal NaNs agree and NaNs elsewhere do not.
  auto flat = local.detach().reshape({-1}).to(at::kDouble);
  auto positions = at::arange(1, flat.numel() + 1, flat.options());
  auto weights = positions.remainder(97).add_(1);
  auto finite = at::where(flat.isfinite(), flat, at::zeros_like(flat));
  auto kinds = flat.isnan().to(at::kDouble) +
      flat.isposinf().to(at::kDouble) * 2 + flat.isneginf().to(at::kDouble) * 3;
  auto sums = at::stack({finite.sum(),
                         (finite * weights).sum(),
                         kinds.sum(),
                         (kinds * positions).sum()})
                  .to(at::kCPU);
  if (mesh.device_type() == "cuda") {
    sums = sums.to(local.device());
  }
  for (int64_t d = 0; d < mesh.ndim(); ++d) {
    const int64_t k = mesh.size(d);
    if (k == 1) {
      continue;
    }
    std::vector<at::Tensor> gathered;
    gathered.reserve(k);
    for (int64_t j = 0; j < k; ++j) {
      gathered.push_back(at::empty_like(sums));
    }
    compat::all_gather(mesh.get_group(d), gathered, sums, mesh.timeout());
    const auto ranks = mesh.group_ranks(d);
    auto reference = gathered[0].cpu();
    std::ostringstream bad;
    for (int64_t j = 1; j < k; ++j) {
      auto other = gathered[j].cpu();
      // NaN-equal: finite values that overflow a sum agree as inf or NaN.
      if (!(other.eq(reference) | (other.isnan() & reference.isnan()))
               .all()
               .item<bool>()) {
        bad << (bad.tellp() > 0 ? ", " : "") << "rank " << ranks[j];
      }
    }
    if (bad.tellp() > 0) {
      auto ref = reference.accessor<double, 1>();
      std::ostringstream os;
      os << "replica check failed for " << what
         << ": it should be replicated over mesh dim " << d << " of "
         << mesh.to_string() << " but " << bad.str()
         << " hold(s) different values than rank " << ranks[0] << " (checksum "
         << ref[0]
         << "). Replicas diverged; broadcast the tensor from one rank first.";
      throw ReplicaMismatchError(os.str());
    }
  }
}

at::Tensor distribute_tensor(
    const at::Tensor& full,
    const DeviceMesh& mesh,
    const Placements& placements_in,
    CallSite where) {
  detail::UserCall call("distribute_tensor", where, [&] {
    std::ostringstream os;
    os << "to " << to_string(placements_in) << ", " << full.sizes() << " on "
       << mesh.to_string();
    return os.str();
  });
  if (!full.defined()) {
    throw PlacementError("distribute_tensor: the tensor is undefined");
  }
  if (is_dtensor(full)) {
    throw PlacementError(
        "distribute_tensor: the tensor already is a DTensor; use redistribute() to change placements");
  }
  if (full.requires_grad() && !full.is_leaf()) {
    throw PlacementError(
        "distribute_tensor should be used to distribute leaf tensors, but found a non-leaf tensor that requires "
        "grad (as PyTorch, meshguard refuses it: its graph would be cut); distribute the leaf, or detach() first");
  }
  const Placements placements =
      detail::normalize_placements(placements_in, full.dim());
  detail::validate_placements(placements, mesh, full.dim());
  detail::check_device(full, mesh, "distribute_tensor");
  at::Tensor value = full.detach();
  if (mesh.size() > 1 && value.numel() > 0) {
    // Rank 0's value wins, as in PyTorch: broadcast along every mesh dim.
    value = value.clone(at::MemoryFormat::Contiguous);
    std::vector<at::Tensor> buf{value};
    for (int64_t d = 0; d < mesh.ndim(); ++d) {
      if (mesh.size(d) > 1) {
        compat::broadcast(mesh.get_group(d), buf, 0, mesh.timeout());
      }
    }
  }
  at::Tensor local = value;
  const auto& coord = mesh.coordinate();
  for (int64_t i = 0; i < mesh.ndim(); ++i) {
    if (auto* s = std::get_if<Shard>(&placements[i])) {
      local = detail::chunk_of(local, s->dim, mesh.size(i), coord[i]);
    } else if (auto* p = std::get_if<Partial>(&placements[i])) {
      local = detail::partition_value(local, p->reduce_op, coord[i]);
    }
  }
  // A compact copy: never alias the caller's tensor or keep the whole buffer.
  local = local.clone(at::MemoryFormat::Contiguous);
  at::Tensor out =
      make_dtensor(local, DTensorSpec{mesh, placements, full.sizes().vec()});
  if (full.requires_grad()) {
    out.requires_grad_(true);
  }
  return out;
}

at::Tensor from_local(
    const at::Tensor& local,
    const DeviceMesh& mesh,
    const Placements& placements_in,
    bool run_check,
    const std::optional<std::vector<int64_t>>& shape,
    CallSite where) {
  detail::UserCall call("from_local(run_check=true)", where, [&] {
    return to_string(placements_in) + " on " + mesh.to_string();
  });
  if (!local.defined()) {
    throw PlacementError("from_local: the tensor is undefined");
  }
  if (is_dtensor(local)) {
    throw PlacementError(
        "from_local: the tensor already is a DTensor; use redistribute() to change placements");
  }
  const Placements placements =
      detail::normalize_placements(placements_in, local.dim());
  detail::validate_placements(placements, mesh, local.dim());
  detail::check_device(local, mesh, "from_local");
  DTensorSpec spec = make_spec(local, mesh, placements, shape);
  if (run_check) {
    check_local_metadata(local, mesh, /*check_shape=*/!shape.has_value());
    bool any_replicate = false;
    for (const auto& p : placements) {
      any_replicate = any_replicate || is_replicate(p);
    }
    if (any_replicate && spec.all_replicate()) {
      check_replicas(
          local, mesh, "from_local(" + detail::describe_arg(local) + ")");
    }
  }
  if (at::GradMode::is_enabled() && local.requires_grad()) {
    return FromLocalFn::apply(local, std::move(spec));
  }
  return make_dtensor(local, std::move(spec));
}

at::Tensor to_local(const at::Tensor& dtensor, const char* file, int line) {
  return to_local(dtensor, std::nullopt, file, line);
}

at::Tensor to_local(
    const at::Tensor& dtensor,
    const std::optional<Placements>& grad_placements_in,
    const char* file,
    int line) {
  auto* impl = require_dtensor(dtensor, "to_local");
  std::optional<Placements> grad_placements;
  if (grad_placements_in) {
    const auto& spec = impl->spec();
    const auto ndim = static_cast<int64_t>(spec.shape.size());
    grad_placements = detail::normalize_placements(*grad_placements_in, ndim);
    detail::validate_placements(*grad_placements, spec.mesh, ndim);
    if (detail::local_shape(
            spec.shape, *grad_placements, spec.mesh, spec.mesh.coordinate()) !=
        impl->local().sizes().vec()) {
      throw PlacementError(
          "to_local: grad_placements " + to_string(*grad_placements) +
          " give a different local shape than the "
          "DTensor's " +
          to_string(spec.placements) +
          "; the gradient must have the local tensor's shape");
    }
  }
  at::Tensor out = (at::GradMode::is_enabled() && dtensor.requires_grad())
      ? ToLocalFn::apply(dtensor, grad_placements)
      : impl->local().alias();
  detail::record_provenance(out, "to_local()", file, line);
  return out;
}

at::Tensor full_tensor(const at::Tensor& dtensor, const char* file, int line) {
  detail::UserCall call("full_tensor", CallSite{file, line}, [&] {
    return detail::describe_operands({dtensor});
  });
  auto* impl = require_dtensor(dtensor, "full_tensor");
  Placements all_replicate(impl->spec().mesh.ndim(), Replicate{});
  at::Tensor replicated = redistribute(dtensor, all_replicate);
  at::Tensor out = (at::GradMode::is_enabled() && replicated.requires_grad())
      ? ToLocalFn::apply(replicated, std::nullopt)
      : get_dtensor_impl(replicated)->local().alias();
  detail::record_provenance(out, "full_tensor()", file, line);
  return out;
}

bool is_dtensor(const at::Tensor& t) {
  return get_dtensor_impl(t) != nullptr;
}

std::optional<DeviceMesh> mesh_of(const at::Tensor& t) {
  if (auto* impl = get_dtensor_impl(t)) {
    return impl->spec().mesh;
  }
  return std::nullopt;
}

std::optional<Placements> placements_of(const at::Tensor& t) {
  if (auto* impl = get_dtensor_impl(t)) {
    return impl->spec().placements;
  }
  return std::nullopt;
}

} // namespace meshguard
