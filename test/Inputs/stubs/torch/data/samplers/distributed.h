// Stub of torch/data/samplers/distributed.h (libtorch) for meshguard's
// check tests: each rank draws its share of the indices, floored or padded
// (allow_duplicates) to one length on every rank.
#pragma once
#include <cstddef>
#include <optional>
#include <vector>

namespace torch {
namespace data {
namespace samplers {
template <typename BatchRequest = std::vector<size_t>> class Sampler {
public:
  virtual ~Sampler() = default;
  virtual void reset(std::optional<size_t> new_size) = 0;
  virtual std::optional<BatchRequest> next(size_t batch_size) = 0;
};
template <typename BatchRequest = std::vector<size_t>>
class DistributedSampler : public Sampler<BatchRequest> {
public:
  DistributedSampler(size_t size, size_t num_replicas = 1, size_t rank = 0,
                     bool allow_duplicates = true);
  void set_epoch(size_t epoch);
  size_t epoch() const;
};
class DistributedRandomSampler : public DistributedSampler<> {
public:
  DistributedRandomSampler(size_t size, size_t num_replicas = 1,
                           size_t rank = 0, bool allow_duplicates = true);
  void reset(std::optional<size_t> new_size = std::nullopt) override;
  std::optional<std::vector<size_t>> next(size_t batch_size) override;
};
class DistributedSequentialSampler : public DistributedSampler<> {
public:
  DistributedSequentialSampler(size_t size, size_t num_replicas = 1,
                               size_t rank = 0, bool allow_duplicates = true);
  void reset(std::optional<size_t> new_size = std::nullopt) override;
  std::optional<std::vector<size_t>> next(size_t batch_size) override;
};
class RandomSampler : public Sampler<> {
public:
  explicit RandomSampler(int64_t size);
  void reset(std::optional<size_t> new_size = std::nullopt) override;
  std::optional<std::vector<size_t>> next(size_t batch_size) override;
};
} // namespace samplers
} // namespace data
} // namespace torch
