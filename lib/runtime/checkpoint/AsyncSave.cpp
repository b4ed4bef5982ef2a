// async_save: save() whose writing goes on in a thread of its own. The
// blocks are copied before it returns (training changes its tensors in
// place), and the thread's collectives run over a coordination mesh that
// the training loop does not use.

#include <meshguard/runtime/Checkpoint.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <map>
#include <mutex>
#include <thread>

#include <c10/util/Exception.h>

#include "checkpoint/SavePhases.h"

namespace meshguard {
namespace checkpoint {

namespace {

// CPU buffers that async saves stage their blocks in, kept for the next
// save: a fresh allocation costs its page faults inside the blocking part
// (PyTorch's async_save keeps its staged state dict too). One buffer per
// block shape and dtype in flight; all of them are one copy of the blocks.
class StagingPool {
 public:
  at::Tensor stage(const at::Tensor& block) {
    const std::string key = key_of(block);
    at::Tensor buffer;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = free_.find(key);
      if (it != free_.end()) {
        buffer = std::move(it->second);
        free_.erase(it);
      }
    }
    if (!buffer.defined()) {
      buffer = at::empty(block.sizes(), block.options().device(at::kCPU));
    }
    buffer.copy_(block);
    return buffer;
  }

  void give_back(const std::vector<at::Tensor>& buffers) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const at::Tensor& b : buffers) {
      free_.emplace(key_of(b), b);
    }
  }

 private:
  static std::string key_of(const at::Tensor& t) {
    std::string key = c10::toString(t.scalar_type());
    for (int64_t s : t.sizes()) {
      key += "," + std::to_string(s);
    }
    return key;
  }

  std::mutex mutex_;
  std::multimap<std::string, at::Tensor> free_;
};

StagingPool& staging_pool() {
  static StagingPool* pool = new StagingPool(); // outlives exiting threads
  return *pool;
}

} // namespace

struct PendingSave::State {
  std::thread writer;
  std::exception_ptr error;
  std::atomic<bool> finished{false};
  bool reported = false;
};

PendingSave::PendingSave() = default;
PendingSave::PendingSave(PendingSave&&) noexcept = default;

PendingSave& PendingSave::operator=(PendingSave&& other) noexcept {
  if (this != &other) {
    // The save this handle held must end before the handle is reused.
    PendingSave old(std::move(*this));
    state_ = std::move(other.state_);
  }
  return *this;
}

PendingSave::~PendingSave() {
  if (!state_) {
    return;
  }
  if (state_->writer.joinable()) {
    state_->writer.join();
  }
  if (state_->error && !state_->reported) {
    try {
      std::rethrow_exception(state_->error);
    } catch (const std::exception& e) {
      TORCH_WARN("checkpoint::async_save failed and nobody waited: ", e.what());
    }
  }
}

void PendingSave::wait() {
  TORCH_CHECK(state_, "checkpoint::PendingSave::wait: no save (moved from?)");
  if (state_->writer.joinable()) {
    state_->writer.join();
  }
  if (state_->error) {
    state_->reported = true;
    std::rethrow_exception(state_->error);
  }
}

bool PendingSave::done() const {
  return !state_ || state_->finished.load();
}

PendingSave async_save(
    const std::map<std::string, at::Tensor>& tensors,
    const std::string& dir,
    const DeviceMesh& mesh,
    const DeviceMesh& coordination,
    const std::map<std::string, c10::IValue>& objects,
    const SaveOptions& options) {
  std::vector<int64_t> ours = mesh.mesh();
  std::vector<int64_t> theirs = coordination.mesh();
  std::sort(ours.begin(), ours.end());
  std::sort(theirs.begin(), theirs.end());
  TORCH_CHECK(
      ours == theirs,
      "checkpoint::async_save: the coordination mesh ",
      coordination.to_string(),
      " is not over the ranks of ",
      mesh.to_string());
  TORCH_CHECK(
      options.format == Format::kDcp,
      "checkpoint::async_save writes the DCP format only; use save() for "
      "safetensors");
  PendingSave pending;
  pending.state_ = std::make_shared<PendingSave::State>();
  auto staged = std::make_shared<StagedSave>(stage_save(
      tensors, dir, mesh, objects, options, [](const at::Tensor& block) {
        return staging_pool().stage(block);
      }));
  PendingSave::State* state = pending.state_.get();
  state->writer = std::thread([state, staged, coordination] {
    try {
      write_and_publish(*staged, coordination);
    } catch (...) {
      state->error = std::current_exception();
    }
    std::vector<at::Tensor> buffers;
    for (Item& item : staged->items) {
      buffers.push_back(std::move(item.value));
    }
    staging_pool().give_back(buffers);
    state->finished = true;
  });
  return pending;
}

} // namespace checkpoint
} // namespace meshguard
