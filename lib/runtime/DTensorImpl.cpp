#include <meshguard/runtime/DTensorImpl.h>

#include <algorithm>
#include <numeric>
#include <typeinfo>

#include <c10/core/DispatchKeySet.h>

#include <meshguard/runtime/Errors.h>

namespace meshguard {

namespace {

// PrivateUse2 routes every op to our kernel; its autograd key lets autograd
// record through DTensors; ADInplaceOrView keeps views and versions right.
c10::DispatchKeySet dtensor_keys() {
  return c10::DispatchKeySet(
      {c10::DispatchKey::PrivateUse2,
       c10::DispatchKey::AutogradPrivateUse2,
       c10::DispatchKey::ADInplaceOrView});
}

// The strides a sharded DTensor reports for its global shape: dense over it,
// in the local tensor's memory order (outermost = largest local stride), so
// a transposed DTensor is not contiguous, .contiguous() really reorders and
// reshape copies where a view of the local tensor would fail. A local tensor
// that is not dense in that order (a slice) makes the outermost stride twice
// as long: not contiguous, not dense, as the full tensor would be. Every rank
// must decide alike, so a dim counts by its global size, not its local one:
// a shard that is 1 or 0 long here (uneven or empty) still has to match.
std::vector<int64_t> global_strides(
    const at::Tensor& local,
    const DTensorSpec& spec) {
  const size_t n = spec.shape.size();
  std::vector<size_t> order(n); // outermost dim first
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return local.stride(a) > local.stride(b);
  });
  bool dense = true;
  int64_t expected = 1;
  for (size_t i = n; i-- > 0;) {
    const size_t d = order[i];
    dense = dense && (spec.shape[d] == 1 || local.stride(d) == expected);
    expected *= std::max<int64_t>(local.size(d), 1);
  }
  std::vector<int64_t> strides(n);
  int64_t s = 1;
  for (size_t i = n; i-- > 0;) {
    strides[order[i]] = s;
    s *= std::max<int64_t>(spec.shape[order[i]], 1);
  }
  if (!dense) {
    for (size_t d : order) {
      if (spec.shape[d] != 1) {
        strides[d] *= 2;
        break;
      }
    }
  }
  return strides;
}

} // namespace

bool DTensorSpec::operator==(const DTensorSpec& other) const {
  return mesh == other.mesh && placements == other.placements &&
      shape == other.shape;
}

bool DTensorSpec::all_replicate() const {
  for (const auto& p : placements) {
    if (!is_replicate(p)) {
      return false;
    }
  }
  return true;
}

bool DTensorSpec::has_partial() const {
  for (const auto& p : placements) {
    if (is_partial(p)) {
      return true;
    }
  }
  return false;
}

std::string DTensorSpec::to_string() const {
  std::string shape_str = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    shape_str += (i ? ", " : "") + std::to_string(shape[i]);
  }
  shape_str += "]";
  return "DTensor(shape=" + shape_str +
      ", placements=" + meshguard::to_string(placements) + ", " +
      mesh.to_string() + ")";
}

DTensorImpl::DTensorImpl(at::Tensor local, DTensorSpec spec)
    : c10::TensorImpl(dtensor_keys(), local.dtype(), local.device()),
      local_(std::move(local)),
      spec_(std::move(spec)) {
  register_dtensor_fallback();
  TORCH_INTERNAL_ASSERT(local_.defined());
  TORCH_CHECK(
      get_dtensor_impl(local_) == nullptr,
      "a DTensor's local tensor cannot itself be a DTensor");
  set_storage_access_should_throw();
  refresh_metadata();
}

void DTensorImpl::refresh_metadata() {
  // When the local tensor has the global shape (Replicate/Partial), mirror its
  // strides so that is_contiguous() tells the truth and .contiguous() really
  // makes a dense local buffer (collectives need one); when it is a shard,
  // strides in its memory order (global_strides).
  // (IntArrayRef views: no vector copies of the local's sizes on every op.)
  if (local_.sizes() == c10::IntArrayRef(spec_.shape)) {
    set_sizes_and_strides(spec_.shape, local_.strides());
  } else {
    set_sizes_and_strides(spec_.shape, global_strides(local_, spec_));
  }
}

void DTensorImpl::set_local_and_spec(at::Tensor local, DTensorSpec spec) {
  local_ = std::move(local);
  spec_ = std::move(spec);
  refresh_metadata();
}

c10::intrusive_ptr<c10::TensorImpl> DTensorImpl::shallow_copy_and_detach(
    const c10::VariableVersion& version_counter,
    bool allow_tensor_metadata_change) const {
  auto impl = c10::make_intrusive<DTensorImpl>(local_, spec_);
  copy_tensor_metadata(
      this, impl.get(), version_counter, allow_tensor_metadata_change);
  impl->refresh_numel();
  return impl;
}

c10::intrusive_ptr<c10::TensorImpl> DTensorImpl::shallow_copy_and_detach(
    c10::VariableVersion&& version_counter,
    bool allow_tensor_metadata_change) const {
  auto impl = c10::make_intrusive<DTensorImpl>(local_, spec_);
  copy_tensor_metadata(
      this,
      impl.get(),
      std::move(version_counter),
      allow_tensor_metadata_change);
  impl->refresh_numel();
  return impl;
}

void DTensorImpl::shallow_copy_from(
    const c10::intrusive_ptr<c10::TensorImpl>& impl) {
  auto* other = dynamic_cast<DTensorImpl*>(impl.get());
  TORCH_CHECK(
      other != nullptr, "cannot shallow-copy a plain tensor into a DTensor");
  copy_tensor_metadata(
      other, this, version_counter(), allow_tensor_metadata_change());
  local_ = other->local_;
  spec_ = other->spec_;
  refresh_metadata();
}

const char* DTensorImpl::tensorimpl_type_name() const {
  return "meshguard::DTensorImpl";
}

DTensorImpl* get_dtensor_impl(const at::Tensor& t) {
  if (!t.defined() ||
      !t.unsafeGetTensorImpl()->key_set().has(c10::DispatchKey::PrivateUse2)) {
    return nullptr;
  }
  // typeid is cheaper than dynamic_cast, and DTensorImpl has no subclasses.
  auto* impl = t.unsafeGetTensorImpl();
  return typeid(*impl) == typeid(DTensorImpl) ? static_cast<DTensorImpl*>(impl)
                                              : nullptr;
}

at::Tensor make_dtensor(at::Tensor local, DTensorSpec spec) {
  return at::Tensor(
      c10::make_intrusive<DTensorImpl>(std::move(local), std::move(spec)));
}

} // namespace meshguard
