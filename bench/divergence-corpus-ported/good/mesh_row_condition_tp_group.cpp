// 2-d mesh (dp x tp). The tensor-parallel group (mesh dim 1) of a rank is its
// row: all its members share coordinate()[0], so the first row can gather its
// activations alone.
// Ported from: mquinson/MBI/scripts/generators/CollComGenerator.py,
//   ParamMatching_Com_*_ok (all ranks of the sub-communicator call the collective)
#include <meshguard/meshguard.h>

void debug_dump(const std::vector<std::vector<at::Tensor>> &acts);

void dump_first_row(const meshguard::DeviceMesh &mesh,
                    std::vector<at::Tensor> &act) {
  const auto &tp_group = mesh.get_group(1);
  if (mesh.coordinate()[0] == 0) {
    std::vector<std::vector<at::Tensor>> all(1);
    tp_group->allgather(all, act)->wait();
    debug_dump(all);
  }
}
