// The macro wraps local work only.
#include <meshguard/meshguard.h>

#define ON_MAIN(mesh, stmt)                                                    \
  do {                                                                         \
    if ((mesh).get_rank() == 0) {                                              \
      stmt;                                                                    \
    }                                                                          \
  } while (0)

void export_model(const meshguard::DeviceMesh &mesh, const at::Tensor &w) {
  at::Tensor full = meshguard::full_tensor(w);
  ON_MAIN(mesh, torch::save(full, "model.pt"));
}
