#include "metrics.h"

namespace metrics {
at::Tensor sum_of_squares(const meshguard::DeviceMesh &mesh,
                          const at::Tensor &rows) {
  at::Tensor x = meshguard::from_local(rows, mesh, {meshguard::Shard{0}});
  return x.pow(2).sum();
}

at::Tensor local_sum_of_squares(const meshguard::DeviceMesh &mesh,
                                const at::Tensor &rows) {
  return meshguard::to_local(sum_of_squares(mesh, rows));
}

at::Tensor scaled(const at::Tensor &t, double by) { return t * by; }

double report(const at::Tensor &value) { return value.item<double>(); }

at::Tensor accumulate(const at::Tensor &total, const at::Tensor &part) {
  return total + part;
}

at::Tensor rows(const meshguard::DeviceMesh &mesh, const at::Tensor &t) {
  return meshguard::distribute_tensor(t, mesh, {meshguard::Shard{0}});
}

at::Tensor rows_on_grid(const meshguard::DeviceMesh &grid,
                        const at::Tensor &t) {
  return meshguard::distribute_tensor(
      t, grid, {meshguard::Shard{0}, meshguard::Replicate{}});
}

at::Tensor replicated(const meshguard::DeviceMesh &mesh, const at::Tensor &t) {
  return meshguard::distribute_tensor(t, mesh, {meshguard::Replicate{}});
}

at::Tensor as_replica(const at::Tensor &t, const meshguard::DeviceMesh &mesh) {
  return meshguard::from_local(t, mesh, {meshguard::Replicate{}});
}
} // namespace metrics
