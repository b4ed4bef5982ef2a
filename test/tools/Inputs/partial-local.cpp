#include <meshguard/meshguard.h>

double meanLoss(const meshguard::DeviceMesh &Mesh, const at::Tensor &Rows) {
  at::Tensor X = meshguard::from_local(Rows, Mesh, {meshguard::Shard{0}});
  at::Tensor Loss = X.mean();
  at::Tensor Local = meshguard::to_local(Loss);
  return Local.item<double>();
}

at::Tensor traceOfRows(const meshguard::DeviceMesh &Mesh, const at::Tensor &Rows) {
  return meshguard::from_local(Rows, Mesh, {meshguard::Shard{0}}).trace();
}
