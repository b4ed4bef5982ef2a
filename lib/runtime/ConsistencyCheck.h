#pragma once

// The collective-consistency mode's machinery (public switch:
// <meshguard/runtime/DebugCollectives.h>). Public entry points open a
// UserCall naming themselves and the caller's line; the collective funnel in
// compat/ calls check_collective before each c10d collective, which compares
// a fingerprint of it across the group through the group's debug channel.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <ATen/Tensor.h>
#include <c10/util/intrusive_ptr.h>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/csrc/distributed/c10d/Store.hpp>

#include <meshguard/runtime/CallSite.h>

#include "ops/Audit.h"

namespace meshguard {
namespace detail {

extern std::atomic<bool> debug_collectives_flag;

// The only cost with the mode off: one relaxed load and a branch.
inline bool debug_collectives_on() {
  return debug_collectives_flag.load(std::memory_order_relaxed);
}

// What the user called: the outermost entry point on this thread wins, so
// full_tensor's inner redistribute and all-gathers carry full_tensor's line.
struct UserCallInfo {
  const char* api = nullptr;
  CallSite where;
  std::string detail; // placements, global shape, mesh
};

const UserCallInfo* current_user_call();
void set_current_user_call(const UserCallInfo* call);

class UserCall {
 public:
  UserCall(const char* api, CallSite where) {
    // The audit mode's errors name the caller too (ops/Audit.h).
    if ((debug_collectives_on() || ops::audit_on()) &&
        current_user_call() == nullptr) {
      info_.api = api;
      info_.where = where;
      set_current_user_call(&info_);
      owner_ = true;
    }
  }
  // `describe()` (a string) runs only when the mode is on.
  template <typename Describe>
  UserCall(const char* api, CallSite where, Describe&& describe)
      : UserCall(api, where) {
    if (owner_) {
      info_.detail = std::forward<Describe>(describe)();
    }
  }
  ~UserCall() {
    if (owner_) {
      set_current_user_call(nullptr);
    }
  }
  UserCall(const UserCall&) = delete;
  UserCall& operator=(const UserCall&) = delete;

 private:
  UserCallInfo info_;
  bool owner_ = false;
};

// "Shard(0), global [8, 4] Float on DeviceMesh('cpu', [0, 1])" per tensor:
// what is the same on every rank (not the local shape).
std::string describe_operands(const std::vector<at::Tensor>& tensors);

// Makes `pg` checkable: its fingerprints go through `store` (a prefix store
// of its own). `ranks` are the group's global ranks in group-rank order.
void register_debug_channel(
    const c10d::ProcessGroup* pg,
    c10::intrusive_ptr<c10d::Store> store,
    std::vector<int64_t> ranks,
    std::chrono::milliseconds mesh_timeout);
// For groups the user built: they have no channel (a stale entry at a
// reused address must not apply to them).
void forget_debug_channel(const c10d::ProcessGroup* pg);

// Compares this collective across the group (call only when
// debug_collectives_on()). `op` is the c10d op, `args` its other arguments.
// Throws CollectiveMismatchError or CollectiveTimeoutError on every rank
// that takes part.
void check_collective(
    const c10d::ProcessGroup& pg,
    const char* op,
    const std::vector<at::Tensor>& tensors,
    const std::string& args);

} // namespace detail
} // namespace meshguard
