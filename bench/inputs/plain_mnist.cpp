// A libtorch training program that uses no meshguard API, in the manner of
// pytorch/examples' cpp/mnist (written for this bench, synthetic data): the
// dtensor-* checks must cost almost nothing on it (bench/fixed_cost.py).

#include <torch/torch.h>

#include <cmath>
#include <cstddef>
#include <cstdio>
#include <vector>

namespace {

constexpr int64_t kBatch = 64;
constexpr int64_t kEpochs = 2;
constexpr double kLearningRate = 0.01;

struct ConvNetImpl : torch::nn::Module {
  ConvNetImpl()
      : conv1(register_module("conv1", torch::nn::Conv2d(
                                           torch::nn::Conv2dOptions(1, 8, 5)))),
        conv2(register_module("conv2", torch::nn::Conv2d(
                                           torch::nn::Conv2dOptions(8, 16, 5)))),
        drop(register_module("drop", torch::nn::Dropout2d())),
        fc1(register_module("fc1", torch::nn::Linear(256, 50))),
        fc2(register_module("fc2", torch::nn::Linear(50, 10))) {}

  torch::Tensor forward(torch::Tensor x) {
    x = torch::relu(torch::max_pool2d(conv1->forward(x), 2));
    x = torch::relu(torch::max_pool2d(drop->forward(conv2->forward(x)), 2));
    x = x.view({-1, 256});
    x = torch::relu(fc1->forward(x));
    x = torch::dropout(x, /*p=*/0.5, /*train=*/is_training());
    return torch::log_softmax(fc2->forward(x), /*dim=*/1);
  }

  torch::nn::Conv2d conv1;
  torch::nn::Conv2d conv2;
  torch::nn::Dropout2d drop;
  torch::nn::Linear fc1;
  torch::nn::Linear fc2;
};
TORCH_MODULE(ConvNet);

/// Synthetic 28x28 "digits": the label is the brightest quadrant.
std::pair<torch::Tensor, torch::Tensor> makeBatch(int64_t size) {
  torch::Tensor images = torch::rand({size, 1, 28, 28});
  torch::Tensor quadrants = torch::stack(
      {images.slice(2, 0, 14).slice(3, 0, 14).sum({1, 2, 3}),
       images.slice(2, 0, 14).slice(3, 14, 28).sum({1, 2, 3}),
       images.slice(2, 14, 28).slice(3, 0, 14).sum({1, 2, 3}),
       images.slice(2, 14, 28).slice(3, 14, 28).sum({1, 2, 3})},
      1);
  return {images, quadrants.argmax(1)};
}

template <typename Optimizer>
double trainEpoch(ConvNet &model, Optimizer &optimizer, int64_t batches) {
  model->train();
  double total = 0;
  for (int64_t b = 0; b < batches; ++b) {
    auto [data, target] = makeBatch(kBatch);
    optimizer.zero_grad();
    torch::Tensor loss = torch::nll_loss(model->forward(data), target);
    AT_ASSERT(!std::isnan(loss.template item<float>()));
    loss.backward();
    optimizer.step();
    total += loss.template item<double>();
  }
  return total / static_cast<double>(batches);
}

double accuracy(ConvNet &model, int64_t batches) {
  torch::NoGradGuard noGrad;
  model->eval();
  int64_t correct = 0;
  for (int64_t b = 0; b < batches; ++b) {
    auto [data, target] = makeBatch(kBatch);
    torch::Tensor prediction = model->forward(data).argmax(1);
    correct += prediction.eq(target).sum().template item<int64_t>();
  }
  return static_cast<double>(correct) / static_cast<double>(batches * kBatch);
}

} // namespace

int main() {
  torch::manual_seed(1);
  ConvNet model;
  torch::optim::SGD optimizer(
      model->parameters(), torch::optim::SGDOptions(kLearningRate).momentum(0.5));
  std::vector<double> losses;
  for (int64_t epoch = 1; epoch <= kEpochs; ++epoch) {
    losses.push_back(trainEpoch(model, optimizer, /*batches=*/8));
    std::printf("epoch %lld: loss %.4f accuracy %.3f\n",
                static_cast<long long>(epoch), losses.back(),
                accuracy(model, /*batches=*/2));
  }
  return 0;
}
