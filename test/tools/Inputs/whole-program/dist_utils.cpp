#include "dist_utils.h"

namespace utils {

void broadcast_parameters(torch::nn::Module &model, c10d::ProcessGroup &pg) {
  std::vector<at::Tensor> params = model.parameters();
  pg.broadcast(params);
}

at::Tensor make_local(const at::Tensor &t) { return meshguard::to_local(t); }

void sync(const at::Tensor &grad) {
  meshguard::dist::all_reduce_({grad});
}

at::Tensor add_noise(const at::Tensor &t) {
  at::Tensor noise = torch::randn({4});
  return t + noise;
}

void sync_on(const at::Tensor &grad, const meshguard::DeviceMesh &mesh) {
  meshguard::guarded::all_reduce_({grad}, mesh);
}

at::Tensor make_replicated(const at::Tensor &t,
                           const meshguard::DeviceMesh &mesh) {
  return meshguard::distribute_tensor(t, mesh, {meshguard::Replicate{}});
}

void broadcast_locals(c10d::ProcessGroup &pg) {
  std::vector<at::Tensor> ts = {torch::zeros({4})};
  pg.broadcast(ts);
}

} // namespace utils
