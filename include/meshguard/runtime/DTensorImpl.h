#pragma once

// The TensorImpl behind a DTensor: storage-less (like functorch's
// BatchedTensorImpl), global sizes, and the local tensor plus spec inside.

#include <cstdint>
#include <vector>

#include <ATen/Tensor.h>
#include <c10/core/TensorImpl.h>

#include <meshguard/runtime/DeviceMesh.h>
#include <meshguard/runtime/Placement.h>

namespace meshguard {

struct DTensorSpec {
  DeviceMesh mesh;
  Placements placements;
  std::vector<int64_t> shape; // global shape

  bool operator==(const DTensorSpec& other) const;
  bool operator!=(const DTensorSpec& other) const {
    return !(*this == other);
  }
  bool all_replicate() const;
  bool has_partial() const;
  std::string to_string() const;
};

class DTensorImpl : public c10::TensorImpl {
 public:
  DTensorImpl(at::Tensor local, DTensorSpec spec);

  const at::Tensor& local() const {
    return local_;
  }
  const DTensorSpec& spec() const {
    return spec_;
  }
  // In-place collectives change the placement (Partial -> Replicate) and
  // the local tensor of the DTensor they were given.
  void set_local_and_spec(at::Tensor local, DTensorSpec spec);

  c10::intrusive_ptr<c10::TensorImpl> shallow_copy_and_detach(
      const c10::VariableVersion& version_counter,
      bool allow_tensor_metadata_change) const override;
  c10::intrusive_ptr<c10::TensorImpl> shallow_copy_and_detach(
      c10::VariableVersion&& version_counter,
      bool allow_tensor_metadata_change) const override;
  void shallow_copy_from(
      const c10::intrusive_ptr<c10::TensorImpl>& impl) override;

 private:
  const char* tensorimpl_type_name() const override;
  void refresh_metadata();

  at::Tensor local_;
  DTensorSpec spec_;
};

// nullptr for a plain tensor.
DTensorImpl* get_dtensor_impl(const at::Tensor& t);

// Wraps without checks or communication; the fallback and redistribute use it.
at::Tensor make_dtensor(at::Tensor local, DTensorSpec spec);

// Makes sure the dispatcher routes every operator on a DTensor to
// meshguard's kernel (done once, on the first DTensor).
void register_dtensor_fallback();

} // namespace meshguard
