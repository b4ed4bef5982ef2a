#pragma once

// A c10d process group that forwards to a real one and counts the
// collectives (and their bytes) that meshguard issues through it, for tests
// and benchmarks that check communication against the analytical minimum.

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>

#include <meshguard/runtime/DeviceMesh.h>

namespace meshguard {
namespace testing {

class CountingGroup : public c10d::ProcessGroup {
 public:
  explicit CountingGroup(c10::intrusive_ptr<c10d::ProcessGroup> inner)
      : c10d::ProcessGroup(inner->getRank(), inner->getSize()),
        inner_(std::move(inner)) {}

  const std::string getBackendName() const override {
    return inner_->getBackendName();
  }
  c10::intrusive_ptr<c10d::Work> broadcast(
      std::vector<at::Tensor>& t,
      const c10d::BroadcastOptions& o) override {
    ++broadcasts;
    count_bytes("broadcast", t);
    return inner_->broadcast(t, o);
  }
  c10::intrusive_ptr<c10d::Work> allreduce(
      std::vector<at::Tensor>& t,
      const c10d::AllreduceOptions& o) override {
    ++all_reduces;
    count_bytes("all_reduce", t);
    return inner_->allreduce(t, o);
  }
  c10::intrusive_ptr<c10d::Work> allgather(
      std::vector<std::vector<at::Tensor>>& out,
      std::vector<at::Tensor>& in,
      const c10d::AllgatherOptions& o) override {
    ++all_gathers;
    count_bytes("all_gather", in);
    return inner_->allgather(out, in, o);
  }
  c10::intrusive_ptr<c10d::Work> _reduce_scatter_base(
      at::Tensor& out,
      at::Tensor& in,
      const c10d::ReduceScatterOptions& o) override {
    ++reduce_scatters;
    count_bytes("reduce_scatter", {in});
    return inner_->_reduce_scatter_base(out, in, o);
  }
  c10::intrusive_ptr<c10d::Work> barrier(
      const c10d::BarrierOptions& o) override {
    return inner_->barrier(o);
  }

  int64_t total() const {
    return broadcasts + all_reduces + all_gathers + reduce_scatters;
  }
  void reset() {
    broadcasts = all_reduces = all_gathers = reduce_scatters = bytes = 0;
    std::lock_guard<std::mutex> lock(mu_);
    calls_.clear();
  }
  // The collectives since the last reset, in order: "all_reduce 40 B, ..."
  // (for messages that say which collective is extra).
  std::string calls() const {
    std::lock_guard<std::mutex> lock(mu_);
    std::ostringstream os;
    for (size_t i = 0; i < calls_.size(); ++i) {
      os << (i ? ", " : "") << calls_[i].first << " " << calls_[i].second
         << " B";
    }
    return os.str();
  }

  // kind -> (count, bytes) since the last reset.
  std::map<std::string, std::pair<int64_t, int64_t>> by_kind() const {
    std::lock_guard<std::mutex> lock(mu_);
    std::map<std::string, std::pair<int64_t, int64_t>> out;
    for (const auto& call : calls_) {
      auto& entry = out[call.first];
      ++entry.first;
      entry.second += call.second;
    }
    return out;
  }

  std::atomic<int64_t> broadcasts{0}, all_reduces{0}, all_gathers{0},
      reduce_scatters{0}, bytes{0};

 private:
  void count_bytes(const char* kind, const std::vector<at::Tensor>& ts) {
    int64_t n = 0;
    for (const auto& t : ts) {
      n += static_cast<int64_t>(t.numel() * t.element_size());
    }
    bytes += n;
    std::lock_guard<std::mutex> lock(mu_);
    calls_.emplace_back(kind, n);
  }
  mutable std::mutex mu_;
  std::vector<std::pair<std::string, int64_t>> calls_;
  c10::intrusive_ptr<c10d::ProcessGroup> inner_;
};

// `base` with every mesh dim's group wrapped in a CountingGroup (returned
// in mesh-dim order).
inline DeviceMesh counting_mesh(
    const DeviceMesh& base,
    std::vector<c10::intrusive_ptr<CountingGroup>>& counters) {
  std::vector<c10::intrusive_ptr<c10d::ProcessGroup>> groups;
  counters.clear();
  for (int64_t d = 0; d < base.ndim(); ++d) {
    counters.emplace_back(
        c10::make_intrusive<CountingGroup>(base.get_group(d)));
    groups.emplace_back(counters.back());
  }
  return DeviceMesh(
      base.device_type(), base.shape(), base.mesh(), groups, base.get_rank());
}

} // namespace testing
} // namespace meshguard
