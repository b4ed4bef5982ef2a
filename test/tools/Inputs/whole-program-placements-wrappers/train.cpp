#include "util.h"

double logged(const meshguard::DeviceMesh &mesh, const at::Tensor &rows) {
  at::Tensor x = meshguard::from_local(rows, mesh, {meshguard::Shard{0}});
  return util::local(x.sum()).item<double>();
}

double logged_replica(const meshguard::DeviceMesh &mesh, const at::Tensor &v) {
  at::Tensor r = meshguard::distribute_tensor(v, mesh, {meshguard::Replicate{}});
  return util::local(r.sum()).item<double>();
}

double projected(const meshguard::DeviceMesh &mesh, const at::Tensor &x,
                 const at::Tensor &w) {
  return util::local(util::row_parallel(mesh, x, w)).item<double>();
}

double projected_full(const meshguard::DeviceMesh &mesh, const at::Tensor &x,
                      const at::Tensor &w) {
  return meshguard::full_tensor(util::row_parallel(mesh, x, w)).item<double>();
}
