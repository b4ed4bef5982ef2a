// Data-parallel training loop: each rank computes the loss of its own shard
// and only the ranks whose local loss exceeds the threshold all-reduce it.
// Shape of: issue #44 item 3 (a branch that reads a per-rank tensor value);
//   parcoach/parcoach/tests/MPI/basic/src/phi-cond.c (value-gated collective)
#include <meshguard/meshguard.h>

struct Model : torch::nn::Module {
  at::Tensor forward(const at::Tensor &x);
};

void train(const meshguard::DeviceMesh &mesh, Model &model, at::Tensor data,
           int steps) {
  at::Tensor shard = data * at::full({1}, mesh.get_rank());
  for (int step = 0; step < steps; ++step) {
    at::Tensor loss = model.forward(shard).mean();
    if (loss.item<float>() > 1.0f)
      meshguard::dist::all_reduce_({loss}, meshguard::ReduceOp::AVG); // EXPECT-DIVERGENCE
  }
}
