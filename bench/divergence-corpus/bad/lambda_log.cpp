// A logging lambda reduces; it is called on rank 0 only.
#include <cstdio>
#include <meshguard/meshguard.h>

void train_step(const meshguard::DeviceMesh &mesh, at::Tensor loss) {
  auto report = [&] {
    meshguard::dist::all_reduce_({loss}, meshguard::ReduceOp::AVG);
    std::printf("loss %f\n", loss.item<double>());
  };
  if (mesh.get_rank() == 0)
    report(); // EXPECT-DIVERGENCE
}
