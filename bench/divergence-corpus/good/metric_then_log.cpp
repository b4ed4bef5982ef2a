// All ranks reduce the metric; the logging rank prints it.
#include <cstdio>
#include <meshguard/meshguard.h>

void log_metrics(const meshguard::DeviceMesh &mesh, at::Tensor loss, int step) {
  if (step % 10 != 0)
    return;
  meshguard::dist::all_reduce_({loss}, meshguard::ReduceOp::AVG);
  if (mesh.get_rank() == 0)
    std::printf("step %d loss %f\n", step, loss.item<double>());
}
