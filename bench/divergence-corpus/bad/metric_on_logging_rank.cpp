// The mean loss is all-reduced by the logging rank only.
#include <cstdio>
#include <meshguard/meshguard.h>

void log_metrics(const meshguard::DeviceMesh &mesh, at::Tensor loss, int step) {
  const bool is_logger = mesh.get_rank() == 0;
  if (is_logger && step % 10 == 0) {
    meshguard::dist::all_reduce_({loss}, meshguard::ReduceOp::AVG); // EXPECT-DIVERGENCE
    std::printf("step %d loss %f\n", step, loss.item<double>());
  }
}
