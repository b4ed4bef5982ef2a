// Stub of torch/data.h (libtorch) for meshguard's check tests: datasets,
// samplers and the stateless data loader a training loop iterates.
#pragma once
#include <ATen/ATen.h>
#include <memory>
#include <optional>
#include <string>
#include <torch/data/samplers/distributed.h>
#include <vector>

namespace torch {
namespace data {
template <typename Data = at::Tensor, typename Target = at::Tensor>
struct Example {
  Data data;
  Target target;
};
namespace transforms {
template <typename T = Example<>> struct Stack {};
struct Normalize {
  Normalize(double Mean, double Stddev);
};
} // namespace transforms
namespace datasets {
class MNIST {
public:
  enum class Mode { kTrain, kTest };
  explicit MNIST(const std::string &root, Mode mode = Mode::kTrain);
  std::optional<size_t> size() const;
  template <typename Transform> MNIST map(Transform transform) &&;
};
} // namespace datasets
struct DataLoaderOptions {
  DataLoaderOptions() = default;
  DataLoaderOptions(size_t batch_size);
  DataLoaderOptions &batch_size(size_t n);
  DataLoaderOptions &workers(size_t n);
};
template <typename Batch> class Iterator {
public:
  Batch &operator*();
  Batch *operator->();
  Iterator &operator++();
  bool operator==(const Iterator &Other) const;
  bool operator!=(const Iterator &Other) const;
};
template <typename Dataset, typename Sampler> class StatelessDataLoader {
public:
  Iterator<Example<>> begin();
  Iterator<Example<>> end();
};
template <typename Dataset, typename Sampler>
std::unique_ptr<StatelessDataLoader<Dataset, Sampler>>
make_data_loader(Dataset dataset, Sampler sampler,
                 DataLoaderOptions options = DataLoaderOptions());
} // namespace data
} // namespace torch
