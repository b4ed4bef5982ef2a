#include "dist_utils.h"

void rankZeroSync(const meshguard::DeviceMesh &mesh, const at::Tensor &g) {
  if (mesh.get_rank() == 0)
    dist_utils::sync(g);
}

void rankZeroWrapper(const meshguard::DeviceMesh &mesh, const at::Tensor &g) {
  const int64_t rank = mesh.get_rank();
  if (rank != 0)
    return;
  dist_utils::sync_and_log(g);
}

void differentOrder(const meshguard::DeviceMesh &mesh, const at::Tensor &a,
                    const at::Tensor &b) {
  if (mesh.get_rank() % 2 == 0) {
    dist_utils::sync(a);
    meshguard::dist::broadcast_({b}, 0);
  } else {
    meshguard::dist::broadcast_({b}, 0);
    dist_utils::sync(a);
  }
}

void perRankSteps(const meshguard::DeviceMesh &mesh, const at::Tensor &g) {
  for (int64_t i = 0; i < mesh.get_rank(); ++i)
    dist_utils::sync_on(g, mesh);
}

// Negative twins: a uniform condition, both sides alike, local work only.
void everyTenSteps(const at::Tensor &g, int step) {
  if (step % 10 == 0)
    dist_utils::sync(g);
}

void bothSides(const meshguard::DeviceMesh &mesh, const at::Tensor &a,
               const at::Tensor &b) {
  if (mesh.get_rank() == 0)
    dist_utils::sync(a);
  else
    dist_utils::sync(b);
}

void everyRankSyncsOn(const meshguard::DeviceMesh &mesh, const at::Tensor &g) {
  for (int64_t i = 0; i < mesh.size(); ++i)
    dist_utils::sync_on(g, mesh);
}

void logOnRankZero(const meshguard::DeviceMesh &mesh, const at::Tensor &g) {
  if (mesh.get_rank() == 0)
    dist_utils::log_norm(g);
}

void syncOnRankZeroOnly(const meshguard::DeviceMesh &mesh, const at::Tensor &g) {
  dist_utils::maybe_sync(g, mesh.get_rank() == 0);
}

void syncWhenDistributed(const meshguard::DeviceMesh &mesh, const at::Tensor &g) {
  dist_utils::maybe_sync(g, mesh.size() > 1);
}
