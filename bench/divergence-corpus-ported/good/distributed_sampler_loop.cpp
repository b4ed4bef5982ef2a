// A data-parallel MNIST trainer: the sampler is built with the rank, but a
// distributed sampler floors or pads every rank's share to one length, so
// the loop over the loader has the same trip count on every rank.
// Shape of: issue #44 item 3 (a C++ MNIST trainer's gradient all-reduce in
//   its loader loop); parcoach SVG/inter/barrier_loop.c (uniform bound)
#include <meshguard/meshguard.h>

struct Model : torch::nn::Module {
  at::Tensor forward(const at::Tensor &x);
};

void train(const c10::intrusive_ptr<c10d::ProcessGroup> &pg, Model &model,
           size_t epochs) {
  auto dataset = torch::data::datasets::MNIST("./mnist").map(
      torch::data::transforms::Stack<>());
  const size_t n = dataset.size().value();
  torch::data::samplers::DistributedRandomSampler sampler(
      n, pg->getSize(), pg->getRank(), false);
  auto loader = torch::data::make_data_loader(
      std::move(dataset), sampler,
      torch::data::DataLoaderOptions().batch_size(64));
  for (size_t epoch = 0; epoch < epochs; ++epoch) {
    sampler.set_epoch(epoch);
    for (auto &batch : *loader) {
      at::Tensor loss = model.forward(batch.data).mean();
      for (auto &p : model.parameters()) {
        std::vector<at::Tensor> grad{p.grad()};
        pg->allreduce(grad)->wait();
      }
    }
  }
}
