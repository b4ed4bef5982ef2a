#include "TransportFailure.h"

#include <atomic>
#include <chrono>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace meshguard {
namespace detail {

namespace {

// Gloo's wording for "a peer sent more bytes than this rank's buffer holds"
// (gloo/transport/tcp/pair.cc); no other failure is intercepted.
constexpr const char* kLongerMessage = "op.preamble.length <= op.nbytes";

std::atomic<uint64_t> failures{0};
std::mutex failure_mu;
std::string* last_failure = new std::string(); // leaked: read during exit
std::terminate_handler previous = nullptr;

std::string what_of(const std::exception_ptr& ep) {
  try {
    std::rethrow_exception(ep);
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return std::string();
  }
}

void on_terminate() {
  const std::exception_ptr ep = std::current_exception();
  const std::string what = ep ? what_of(ep) : std::string();
  if (what.find(kLongerMessage) != std::string::npos) {
    {
      std::lock_guard<std::mutex> lock(failure_mu);
      *last_failure = what;
    }
    failures.fetch_add(1);
    // Park this (Gloo transport) thread: returning from a terminate handler
    // is not allowed, and ending the thread would terminate.
    for (;;) {
      std::this_thread::sleep_for(std::chrono::hours(24));
    }
  }
  if (previous != nullptr) {
    previous();
  }
  std::abort();
}

} // namespace

void catch_transport_failures_once() {
  static std::once_flag once;
  std::call_once(once, [] { previous = std::set_terminate(on_terminate); });
}

uint64_t transport_failure_count() {
  return failures.load();
}

std::string last_transport_failure() {
  std::lock_guard<std::mutex> lock(failure_mu);
  return *last_failure;
}

void keep_forever(const c10::intrusive_ptr<c10d::ProcessGroup>& pg) {
  static std::mutex mu;
  static auto* kept = new std::vector<c10::intrusive_ptr<c10d::ProcessGroup>>();
  std::lock_guard<std::mutex> lock(mu);
  kept->push_back(pg);
}

} // namespace detail
} // namespace meshguard
