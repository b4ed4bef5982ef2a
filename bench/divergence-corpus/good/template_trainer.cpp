// The generic trainer gathers everywhere.
#include <meshguard/meshguard.h>

template <typename Model>
void snapshot(const meshguard::DeviceMesh &mesh, Model &model) {
  at::Tensor full = meshguard::full_tensor(model.weight);
  if (mesh.get_rank() == 0)
    torch::save(full, "snap.pt");
}

struct Linear {
  at::Tensor weight;
};

void run(const meshguard::DeviceMesh &mesh, Linear &l) { snapshot(mesh, l); }
