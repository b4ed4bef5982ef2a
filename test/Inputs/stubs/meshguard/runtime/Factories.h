// Stub of include/meshguard/runtime/Factories.h for the check tests: the
// DTensor factories (each rank makes its shard of a global tensor).
#pragma once
#include <meshguard/meshguard.h>

namespace meshguard {
at::Tensor ones(std::vector<int64_t> size, const DeviceMesh &mesh,
                const Placements &placements, at::TensorOptions options = {});
at::Tensor zeros(std::vector<int64_t> size, const DeviceMesh &mesh,
                 const Placements &placements, at::TensorOptions options = {});
at::Tensor empty(std::vector<int64_t> size, const DeviceMesh &mesh,
                 const Placements &placements, at::TensorOptions options = {});
at::Tensor full(std::vector<int64_t> size, const at::Scalar &fill_value,
                const DeviceMesh &mesh, const Placements &placements,
                at::TensorOptions options = {});
at::Tensor rand(std::vector<int64_t> size, const DeviceMesh &mesh,
                const Placements &placements, at::TensorOptions options = {});
at::Tensor randn(std::vector<int64_t> size, const DeviceMesh &mesh,
                 const Placements &placements, at::TensorOptions options = {});
} // namespace meshguard
