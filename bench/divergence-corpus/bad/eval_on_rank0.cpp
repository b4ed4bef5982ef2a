// Evaluation gathers the sharded predictions, but only rank 0 evaluates.
#include <cstdio>
#include <meshguard/meshguard.h>

double accuracy(const at::Tensor &pred, const at::Tensor &labels);

void evaluate(const meshguard::DeviceMesh &mesh, const at::Tensor &pred,
              const at::Tensor &labels, int epoch) {
  const int64_t rank = mesh.get_rank();
  if (rank != 0)
    return;
  at::Tensor all = meshguard::full_tensor(pred); // EXPECT-DIVERGENCE
  std::printf("epoch %d acc %f\n", epoch, accuracy(all, labels));
}
