// Each rank walks its own share of the batches (the last ranks get one
// fewer): the gradient all-reduce runs a different number of times.
// Shape of: parcoach/parcoach/tests/MPI/basic/SVG/inter/intra_loop.c
//   (rank-dependent trip count) in a data-parallel loop (issue #44 item 3)
#include <meshguard/meshguard.h>

struct Model : torch::nn::Module {
  at::Tensor forward(const at::Tensor &x);
};

void train_epoch(const c10::intrusive_ptr<c10d::ProcessGroup> &pg,
                 Model &model, int64_t batches) {
  const int64_t rank = pg->getRank();
  const int64_t mine = (batches - rank + pg->getSize() - 1) / pg->getSize();
  for (int64_t b = 0; b < mine; ++b) {
    for (auto &p : model.parameters()) {
      std::vector<at::Tensor> grad{p.grad()};
      pg->allreduce(grad)->wait(); // EXPECT-DIVERGENCE
    }
  }
}
