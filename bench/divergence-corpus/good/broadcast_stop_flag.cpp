// Rank 0 decides to stop and broadcasts the decision: all ranks agree.
#include <meshguard/meshguard.h>

bool should_stop_locally(int64_t rank);

void loop(const meshguard::DeviceMesh &mesh, at::Tensor grad) {
  for (int step = 0; step < 100; ++step) {
    at::Tensor stop = torch::tensor(should_stop_locally(mesh.get_rank()) ? 1.0 : 0.0);
    meshguard::dist::broadcast_({stop}, 0);
    if (stop.item<double>() > 0.5)
      break;
    meshguard::dist::all_reduce_({grad});
  }
}
