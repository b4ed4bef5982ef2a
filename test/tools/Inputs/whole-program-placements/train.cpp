#include "metrics.h"

double lossOf(const meshguard::DeviceMesh &mesh, const at::Tensor &x) {
  at::Tensor loss = metrics::sum_of_squares(mesh, x);
  return meshguard::to_local(loss).item<double>();
}

double lossOfFull(const meshguard::DeviceMesh &mesh, const at::Tensor &x) {
  return meshguard::full_tensor(metrics::sum_of_squares(mesh, x)).item<double>();
}

double localLoss(const meshguard::DeviceMesh &mesh, const at::Tensor &x) {
  at::Tensor share = metrics::local_sum_of_squares(mesh, x);
  return share.item<double>();
}

double reported(const meshguard::DeviceMesh &mesh, const at::Tensor &x) {
  at::Tensor share = meshguard::to_local(metrics::sum_of_squares(mesh, x));
  at::Tensor total = metrics::accumulate(share, share);
  return metrics::report(metrics::scaled(total, 0.5));
}

at::Tensor middle(const meshguard::DeviceMesh &mesh, const at::Tensor &t) {
  at::Tensor r = metrics::rows(mesh, t);
  return r.trace();
}

at::Tensor middleReplicated(const meshguard::DeviceMesh &mesh,
                            const at::Tensor &t) {
  return metrics::replicated(mesh, t).median();
}

at::Tensor mixed(const meshguard::DeviceMesh &mesh,
                 const meshguard::DeviceMesh &grid, const at::Tensor &t) {
  at::Tensor a = metrics::rows_on_grid(grid, t);
  at::Tensor b = metrics::rows(mesh, t);
  at::Tensor same = metrics::rows(mesh, t) + b;
  return a + b;
}

at::Tensor replicas(const meshguard::DeviceMesh &mesh, const at::Tensor &t) {
  at::Tensor mine = t * mesh.get_rank();
  at::Tensor shared = t * 2;
  return metrics::as_replica(mine, mesh) + metrics::as_replica(shared, mesh);
}
