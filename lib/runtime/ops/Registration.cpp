// Registration of the DTensor kernel (ops/Dispatch.cpp) with libtorch's
// dispatcher, for every operator known now and every one registered later.

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_set>
#include <vector>

#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/csrc/autograd/autograd_not_implemented_fallback.h>
#include <torch/library.h>

#include <meshguard/runtime/DTensorImpl.h>

#include "ops/CallPolicy.h"
#include "ops/Dispatch.h"

namespace meshguard {

namespace {

// Registration. A backend fallback alone is not enough: composite kernels
// take precedence over it and then touch the storage of the storage-less
// impl. So every operator gets a direct kernel, except those with a
// CompositeImplicitAutograd kernel: they must decompose (into ops that reach
// us) for autograd to record them.
std::mutex registry_mutex;
std::vector<c10::OperatorName>* pending = new std::vector<c10::OperatorName>();
std::atomic<bool> has_pending{false};

class Listener final : public c10::OpRegistrationListener {
 public:
  void onOperatorRegistered(const c10::OperatorHandle& op) override {
    // The dispatcher holds its lock here: only queue the name.
    std::lock_guard<std::mutex> lock(registry_mutex);
    pending->push_back(op.operator_name());
    has_pending.store(true);
  }
  void onOperatorDeregistered(const c10::OperatorHandle&) override {}
};

void register_one(
    const c10::OperatorName& name,
    std::unordered_set<std::string>& done,
    std::vector<c10::RegistrationHandleRAII>& handles) {
  auto& dispatcher = c10::Dispatcher::singleton();
  const std::string key = c10::toString(name);
  if (done.count(key)) {
    return;
  }
  auto handle = dispatcher.findOp(name);
  if (!handle || !handle->hasSchema()) {
    return;
  }
  done.insert(key);
  if ((handle->hasKernelForDispatchKey(
           c10::DispatchKey::CompositeImplicitAutograd) &&
       !ops::kernel_replaces_decomposition(*handle)) ||
      handle->hasKernelForDispatchKey(c10::DispatchKey::PrivateUse2)) {
    return;
  }
  handles.push_back(dispatcher.registerImpl(
      name,
      c10::DispatchKey::PrivateUse2,
      c10::KernelFunction::makeFromBoxedFunction<&dtensor_kernel>(),
      c10::nullopt,
      nullptr,
      "meshguard DTensor kernel"));
  if (handle->hasKernelForDispatchKey(
          c10::DispatchKey::CompositeImplicitAutograd)) {
    // A backward helper run by its rule: with a backend kernel its autograd
    // key no longer takes the decomposition and has nothing of its own.
    handles.push_back(dispatcher.registerImpl(
        name,
        c10::DispatchKey::AutogradPrivateUse2,
        c10::KernelFunction::makeFallthrough(),
        c10::nullopt,
        nullptr,
        "meshguard DTensor kernel: backward helper, no autograd"));
  }
}

} // namespace

void register_dtensor_fallback() {
  // Kept for the life of the process (reachable, so not a leak).
  static auto* done = new std::unordered_set<std::string>();
  static auto* handles = new std::vector<c10::RegistrationHandleRAII>();
  static std::once_flag once;
  std::call_once(once, [] {
    auto& dispatcher = c10::Dispatcher::singleton();
    handles->push_back(dispatcher.registerFallback(
        c10::DispatchKey::PrivateUse2,
        c10::KernelFunction::makeFromBoxedFunction<&dtensor_kernel>(),
        "meshguard DTensor fallback"));
    {
      std::lock_guard<std::mutex> lock(registry_mutex);
      for (const auto& name : dispatcher.getAllOpNames()) {
        register_one(name, *done, *handles);
      }
    }
    // Replays every known op into `pending` too; register_one skips repeats.
    handles->push_back(
        dispatcher.addRegistrationListener(std::make_unique<Listener>()));
    // A user's op with a CPU kernel and no autograd kernel (TORCH_LIBRARY)
    // has none for DTensors' autograd key either: as on plain CPU tensors,
    // it runs, and backward through it is an error naming it.
    static auto* autograd = new torch::Library(
        torch::Library::IMPL,
        "_",
        c10::DispatchKey::AutogradPrivateUse2,
        __FILE__,
        __LINE__);
    autograd->fallback(torch::autograd::autogradNotImplementedFallback());
  });
  if (has_pending.load()) {
    std::lock_guard<std::mutex> lock(registry_mutex);
    auto names = std::move(*pending);
    pending->clear();
    has_pending.store(false);
    for (const auto& name : names) {
      register_one(name, *done, *handles);
    }
  }
}

} // namespace meshguard
