#include "dist_utils.h"

namespace dist_utils {

static void print(const at::Tensor &t) { (void)t; }

void log_norm(const at::Tensor &grads) { print(grads); }

void sync(const at::Tensor &grads) {
  print(grads);
  meshguard::dist::all_reduce_({grads});
}

void sync_and_log(const at::Tensor &grads) {
  log_norm(grads);
  sync(grads);
}

void sync_on(const at::Tensor &grads, const meshguard::DeviceMesh &mesh) {
  meshguard::guarded::all_reduce_({grads}, mesh);
}

void maybe_sync(const at::Tensor &grads, bool doit) {
  if (doit)
    meshguard::dist::all_reduce_({grads});
}

} // namespace dist_utils
