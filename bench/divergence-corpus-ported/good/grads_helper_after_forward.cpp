// Data-parallel training loop: the gradients differ per rank (each rank saw
// its own shard), but the helper's collective is decided by whether each
// gradient is defined and by the module's parameter list, the same on
// every rank.
// Shape of: issue #44 item 3 (gradients passed to a helper whose collective
//   its parameter decides); parcoach SVG/inter/inter_arg.c (uniform argument)
#include <meshguard/meshguard.h>

struct Model : torch::nn::Module {
  at::Tensor forward(const at::Tensor &x);
};

void average_gradients(torch::nn::Module &model) {
  for (auto &p : model.parameters())
    if (p.grad().defined())
      meshguard::dist::all_reduce_({p.grad()}, meshguard::ReduceOp::AVG);
}

void report(const at::Tensor &loss) {
  if (loss.defined())
    meshguard::dist::all_reduce_({loss}, meshguard::ReduceOp::AVG);
}

void train(const meshguard::DeviceMesh &mesh, Model &model, at::Tensor data,
           int steps) {
  at::Tensor shard = data * at::full({1}, mesh.get_rank());
  for (int step = 0; step < steps; ++step) {
    at::Tensor loss = model.forward(shard).mean();
    average_gradients(model);
    report(loss);
  }
}
