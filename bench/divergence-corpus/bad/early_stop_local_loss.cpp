// Each rank stops when its own loss is small: the others keep reducing.
#include <meshguard/meshguard.h>

at::Tensor local_batch(int64_t rank, int step);
at::Tensor forward(const at::Tensor &x, const at::Tensor &w);

void train(const meshguard::DeviceMesh &mesh, at::Tensor w, at::Tensor grad) {
  const int64_t rank = mesh.get_rank();
  for (int step = 0; step < 1000; ++step) {
    at::Tensor loss = forward(local_batch(rank, step), w);
    if (loss.item<double>() < 1e-3)
      break;
    meshguard::dist::all_reduce_({grad}); // EXPECT-DIVERGENCE
    w.sub_(grad);
  }
}
