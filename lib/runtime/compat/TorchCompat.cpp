#include "compat/TorchCompat.h"

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#include <torch/cuda.h>
#include <torch/version.h>

#ifdef MESHGUARD_HAVE_NCCL
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif

#include <meshguard/runtime/Errors.h>

#include "ConsistencyCheck.h"
#include "SizeCheck.h"
#include "TransportFailure.h"

// libtorch 2.x: Gloo and NCCL are c10d::Backends behind a ProcessGroup.
#define MESHGUARD_TORCH_BACKENDS (TORCH_VERSION_MAJOR >= 2)

namespace meshguard {
namespace compat {

namespace {

[[noreturn]] void throw_no_nccl(const std::string& what) {
  throw MeshInitError(
      what + ": this libtorch was built without NCCL (its torch target does not define USE_C10D_NCCL, "
             "or nccl.h was not found when meshguard was configured). "
             "Configure meshguard against a CUDA build of PyTorch (Torch_DIR="
             "$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')/Torch) or use a \"cpu\" mesh.");
}

#if MESHGUARD_TORCH_BACKENDS
// Between 2.0 and 2.11 the ProcessGroup constructor lost its Options
// argument and gained setDefaultBackend (pytorch#132931, around 2.6).
// Detecting both members is exact for every 2.x, where a minor-version
// boundary would be a guess.
template <typename PG, typename = void>
struct has_set_default_backend : std::false_type {};
template <typename PG>
struct has_set_default_backend<
    PG,
    std::void_t<decltype(std::declval<PG&>().setDefaultBackend(std::declval<typename PG::BackendType>()))>>
    : std::true_type {};

template <typename PG = c10d::ProcessGroup>
Group wrap_backend(
    const c10::intrusive_ptr<c10d::Store>& store,
    int64_t rank,
    int64_t size,
    c10::DeviceType device,
    typename PG::BackendType type,
    const char* name,
    c10::intrusive_ptr<c10d::Backend> backend,
    std::chrono::milliseconds timeout) {
  c10::intrusive_ptr<PG> pg;
  if constexpr (std::is_constructible_v<PG, const c10::intrusive_ptr<c10d::Store>&, int, int>) {
    pg = c10::make_intrusive<PG>(store, static_cast<int>(rank), static_cast<int>(size));
  } else {
    // 2.0 - 2.5: the default backend comes from the options' name.
    auto options = c10::make_intrusive<typename PG::Options>(name, timeout);
    pg = c10::make_intrusive<PG>(store, static_cast<int>(rank), static_cast<int>(size), options);
  }
  if constexpr (has_set_default_backend<PG>::value) {
    pg->setDefaultBackend(type);
  }
  pg->setBackend(device, type, backend);
  return pg;
}
#endif

} // namespace

bool have_nccl() {
#ifdef MESHGUARD_HAVE_NCCL
  return true;
#else
  return false;
#endif
}

c10::intrusive_ptr<c10d::Store> make_tcp_store(
    const std::string& host,
    uint16_t port,
    bool is_server,
    int64_t world_size,
    std::chrono::milliseconds timeout) {
  c10d::TCPStoreOptions opts;
  opts.port = port;
  opts.isServer = is_server;
  opts.numWorkers = static_cast<size_t>(world_size);
  // The rendezvous waits for the workers itself (comparing their
  // WORLD_SIZE), with errors that name the missing ranks.
  opts.waitWorkers = false;
  opts.timeout = timeout;
  return c10::make_intrusive<c10d::TCPStore>(host, opts);
}

c10::intrusive_ptr<c10d::Store> make_prefix_store(
    const std::string& prefix,
    const c10::intrusive_ptr<c10d::Store>& store) {
  return c10::make_intrusive<c10d::PrefixStore>(prefix, store);
}

void set_store_timeout(const c10::intrusive_ptr<c10d::Store>& store, std::chrono::milliseconds timeout) {
  store->setTimeout(timeout);
}

Group make_gloo_group(
    const c10::intrusive_ptr<c10d::Store>& store,
    int64_t rank,
    int64_t size,
    std::chrono::milliseconds timeout,
    const std::string& hostname) {
  auto options = c10d::ProcessGroupGloo::Options::create(timeout);
  options->devices.push_back(
      hostname.empty() ? c10d::ProcessGroupGloo::createDefaultDevice()
                       : c10d::ProcessGroupGloo::createDeviceForHostname(hostname));
  options->threads = 2;
  auto gloo = c10::make_intrusive<c10d::ProcessGroupGloo>(store, static_cast<int>(rank), static_cast<int>(size), options);
#if MESHGUARD_TORCH_BACKENDS
  return wrap_backend(
      store, rank, size, c10::DeviceType::CPU, c10d::ProcessGroup::BackendType::GLOO, "gloo", gloo, timeout);
#else
  return gloo;
#endif
}

Group make_nccl_group(
    const c10::intrusive_ptr<c10d::Store>& store,
    int64_t rank,
    int64_t size,
    std::chrono::milliseconds timeout) {
#ifdef MESHGUARD_HAVE_NCCL
  auto options = c10d::ProcessGroupNCCL::Options::create();
  options->timeout = timeout;
  auto nccl = c10::make_intrusive<c10d::ProcessGroupNCCL>(store, static_cast<int>(rank), static_cast<int>(size), options);
#if MESHGUARD_TORCH_BACKENDS
  return wrap_backend(
      store, rank, size, c10::DeviceType::CUDA, c10d::ProcessGroup::BackendType::NCCL, "nccl", nccl, timeout);
#else
  return nccl;
#endif
#else
  (void)store;
  (void)rank;
  (void)size;
  (void)timeout;
  throw_no_nccl("init_device_mesh(\"cuda\")");
#endif
}

int64_t cuda_device_count() {
  return static_cast<int64_t>(torch::cuda::device_count());
}

void require_cuda(const std::string& what) {
  if (!have_nccl()) {
    throw_no_nccl(what);
  }
  if (cuda_device_count() == 0) {
    const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
    throw MeshInitError(
        what + ": no CUDA device is visible to this process" +
        (visible != nullptr ? std::string(" (CUDA_VISIBLE_DEVICES='") + visible + "')" : std::string()) +
        "; run it on a machine with a GPU, or use a \"cpu\" mesh");
  }
}

int64_t bind_local_device(int64_t local_rank) {
  const int64_t count = cuda_device_count();
  if (local_rank < 0 || local_rank >= count) {
    throw MeshInitError("init_device_mesh(\"cuda\"): LOCAL_RANK=" + std::to_string(local_rank) + " but only " +
                        std::to_string(count) + " CUDA device(s) are visible; start at most one rank per GPU");
  }
  // Through the device-guard registry, which needs no CUDA headers here.
  c10::impl::getDeviceGuardImpl(c10::DeviceType::CUDA)
      ->setDevice(c10::Device(c10::DeviceType::CUDA, static_cast<c10::DeviceIndex>(local_rank)));
  return local_rank;
}

int64_t current_cuda_device() {
  return c10::impl::getDeviceGuardImpl(c10::DeviceType::CUDA)->getDevice().index();
}

namespace {

bool on_cuda(const std::vector<at::Tensor>& tensors) {
  return !tensors.empty() && tensors.front().is_cuda();
}

// Gloo's transport thread failed on a message longer than this rank's
// buffer (TransportFailure.h): the collective cannot finish.
[[noreturn]] void fail_longer_message(const Group& pg, const char* op) {
  detail::keep_forever(pg);
  const std::string gloo = detail::last_transport_failure();
  std::string sizes;
  const auto dot = gloo.find("op.nbytes. ");
  if (dot != std::string::npos) {
    sizes = gloo.substr(dot + 11);
    const auto vs = sizes.find(" vs ");
    if (vs != std::string::npos) {
      sizes = ": a message of " + sizes.substr(0, vs) + " bytes arrived for a " + sizes.substr(vs + 4) +
          "-byte receive buffer";
    }
  }
  throw CollectiveMismatchError(
      std::string(op) + ": the ranks of the group passed tensors of different sizes" + sizes +
      " (Gloo: " + gloo.substr(0, gloo.find('\n')) +
      "). Every rank must pass the same shapes to a collective. This process group can no longer be used (its "
      "transport stopped); MESHGUARD_CHECK_SIZES=1 refuses such a collective before it starts and keeps the group "
      "usable, and MESHGUARD_DEBUG_COLLECTIVES=1 also names each rank's call site.");
}

bool completed(const c10::intrusive_ptr<c10d::Work>& work) {
  try {
    return work->isCompleted();
  } catch (const std::exception&) {
    return true;
  }
}

// Waits in slices so that a failed transport thread (which never completes
// the work) is noticed at once; a collective shorter than a slice pays
// nothing for it.
void wait_cpu(const Group& pg, const c10::intrusive_ptr<c10d::Work>& work, std::chrono::milliseconds timeout,
              const char* op) {
  constexpr std::chrono::milliseconds kSlice{50};
  const uint64_t failures_before = detail::transport_failure_count();
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left <= kSlice) {
      work->wait(std::max(left, std::chrono::milliseconds(1)));
      return;
    }
    try {
      work->wait(kSlice);
      return;
    } catch (const std::exception&) {
      if (completed(work)) {
        // Done since the slice ran out (a race, not a timeout): returns, or
        // throws the collective's own error.
        work->wait(kSlice);
        return;
      }
      if (detail::transport_failure_count() != failures_before) {
        fail_longer_message(pg, op);
      }
    }
  }
}

void wait(const Group& pg, const c10::intrusive_ptr<c10d::Work>& work, bool cuda, std::chrono::milliseconds timeout,
          const char* op) {
  if (cuda) {
    // WorkNCCL::wait(timeout) polls the host every millisecond until done;
    // without one the current stream waits for NCCL's, and the group's
    // Options::timeout (NCCL's watchdog) still bounds a hang.
    work->wait();
  } else {
    try {
      wait_cpu(pg, work, timeout, op);
    } catch (const Error&) {
      throw;
    } catch (const std::exception& e) {
      const std::string what = e.what();
      if (what.find("imed out") != std::string::npos) {
        // Work::wait's "Operation timed out!" or Gloo's own recv timeout.
        std::ostringstream os;
        os << op << ": the collective did not complete within " << std::chrono::duration<double>(timeout).count()
           << " s (MESHGUARD_TIMEOUT_S; " << what.substr(0, what.find('\n'))
           << "): a rank of the group did not call it, called another collective, or is stuck in other work. "
              "Run every rank with MESHGUARD_DEBUG_COLLECTIVES=1 to see what each rank called, and where.";
        throw CollectiveTimeoutError(os.str());
      }
      const bool peer_gone = what.find("by peer") != std::string::npos ||
          what.find("Broken pipe") != std::string::npos || what.find("Socket closed") != std::string::npos;
      if (!peer_gone || std::getenv("MESHGUARD_CHECK_SIZES") != nullptr) {
        throw;
      }
      // A peer that got a longer message than its buffer failed (it says so
      // itself, or it ended); this rank only sees the connection drop.
      std::throw_with_nested(std::runtime_error(
          what + " (the peer's process ended or its group stopped. If it reported 'op.preamble.length <= "
                 "op.nbytes', the ranks passed tensors of different sizes to this collective: run every rank "
                 "with MESHGUARD_CHECK_SIZES=1 to get an error naming them)"));
    }
  }
}

c10d::ReduceOp to_c10d(ReduceOp op) {
  switch (op) {
    case ReduceOp::SUM:
    case ReduceOp::AVG:
      return c10d::ReduceOp::SUM;
    case ReduceOp::PRODUCT:
      return c10d::ReduceOp::PRODUCT;
    case ReduceOp::MIN:
      return c10d::ReduceOp::MIN;
    case ReduceOp::MAX:
      return c10d::ReduceOp::MAX;
  }
  return c10d::ReduceOp::SUM;
}

} // namespace

void broadcast(const Group& pg, std::vector<at::Tensor>& tensors, int64_t root, std::chrono::milliseconds timeout) {
  if (detail::debug_collectives_on()) {
    detail::check_collective(*pg, "broadcast", tensors, "root " + std::to_string(root));
  }
  detail::check_same_sizes(pg, tensors, "broadcast", timeout);
  c10d::BroadcastOptions opts;
  opts.rootRank = root;
  opts.timeout = timeout;
  wait(pg, pg->broadcast(tensors, opts), on_cuda(tensors), timeout, "broadcast");
}

void all_reduce(const Group& pg, std::vector<at::Tensor>& tensors, ReduceOp op, std::chrono::milliseconds timeout) {
  if (detail::debug_collectives_on()) {
    detail::check_collective(*pg, "allreduce", tensors, std::string(to_string(op)));
  }
  detail::check_same_sizes(pg, tensors, "all_reduce", timeout);
  c10d::AllreduceOptions opts;
  opts.reduceOp = to_c10d(op);
  opts.timeout = timeout;
  wait(pg, pg->allreduce(tensors, opts), on_cuda(tensors), timeout, "all_reduce");
  if (op == ReduceOp::AVG) {
    for (auto& t : tensors) {
      t.div_(pg->getSize());
    }
  }
}

void barrier(const Group& pg, std::chrono::milliseconds timeout) {
  c10d::BarrierOptions opts;
  opts.timeout = timeout;
  wait(pg, pg->barrier(opts), false, timeout, "barrier");
}

void all_gather(
    const Group& pg,
    std::vector<at::Tensor>& outputs,
    const at::Tensor& input,
    std::chrono::milliseconds timeout) {
  if (detail::debug_collectives_on()) {
    detail::check_collective(*pg, "allgather", {input}, std::string());
  }
  detail::check_same_sizes(pg, {input}, "all_gather", timeout);
  all_gather_unchecked(pg, outputs, input, timeout);
}

void all_gather_unchecked(
    const Group& pg,
    std::vector<at::Tensor>& outputs,
    const at::Tensor& input,
    std::chrono::milliseconds timeout) {
  std::vector<std::vector<at::Tensor>> out{outputs};
  std::vector<at::Tensor> in{input};
  c10d::AllgatherOptions opts;
  opts.timeout = timeout;
  wait(pg, pg->allgather(out, in, opts), input.is_cuda(), timeout, "all_gather");
  outputs = out[0];
}

} // namespace compat
} // namespace meshguard
