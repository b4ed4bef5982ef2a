#include "compat/TorchCompat.h"

#include <cstdlib>
#include <string>
#include <type_traits>
#include <utility>

#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <torch/cuda.h>
#include <torch/version.h>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#ifdef MESHGUARD_HAVE_NCCL
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif

#include <meshguard/runtime/Errors.h>

#include "ConsistencyCheck.h"
#include "SizeCheck.h"
#include "WorkWait.h"

// libtorch 2.x: Gloo and NCCL are c10d::Backends behind a ProcessGroup.
#define MESHGUARD_TORCH_BACKENDS (TORCH_VERSION_MAJOR >= 2)

namespace meshguard {
namespace compat {

namespace {

[[noreturn]] void throw_no_nccl(const std::string& what) {
  throw MeshInitError(
      what +
      ": this libtorch was built without NCCL (its torch target does not define USE_C10D_NCCL, "
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
    std::void_t<decltype(std::declval<PG&>().setDefaultBackend(
        std::declval<typename PG::BackendType>()))>> : std::true_type {};

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
  if constexpr (std::is_constructible_v<
                    PG,
                    const c10::intrusive_ptr<c10d::Store>&,
                    int,
                    int>) {
    pg = c10::make_intrusive<PG>(
        store, static_cast<int>(rank), static_cast<int>(size));
  } else {
    // 2.0 - 2.5: the default backend comes from the options' name.
    auto options = c10::make_intrusive<typename PG::Options>(name, timeout);
    pg = c10::make_intrusive<PG>(
        store, static_cast<int>(rank), static_cast<int>(size), options);
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

void set_store_timeout(
    const c10::intrusive_ptr<c10d::Store>& store,
    std::chrono::milliseconds timeout) {
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
      hostname.empty()
          ? c10d::ProcessGroupGloo::createDefaultDevice()
          : c10d::ProcessGroupGloo::createDeviceForHostname(hostname));
  options->threads = 2;
  auto gloo = c10::make_intrusive<c10d::ProcessGroupGloo>(
      store, static_cast<int>(rank), static_cast<int>(size), options);
#if MESHGUARD_TORCH_BACKENDS
  return wrap_backend(
      store,
      rank,
      size,
      c10::DeviceType::CPU,
      c10d::ProcessGroup::BackendType::GLOO,
      "gloo",
      gloo,
      timeout);
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
  auto nccl = c10::make_intrusive<c10d::ProcessGroupNCCL>(
      store, static_cast<int>(rank), static_cast<int>(size), options);
#if MESHGUARD_TORCH_BACKENDS
  return wrap_backend(
      store,
      rank,
      size,
      c10::DeviceType::CUDA,
      c10d::ProcessGroup::BackendType::NCCL,
      "nccl",
      nccl,
      timeout);
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
        (visible != nullptr
             ? std::string(" (CUDA_VISIBLE_DEVICES='") + visible + "')"
             : std::string()) +
        "; run it on a machine with a GPU, or use a \"cpu\" mesh");
  }
}

int64_t bind_local_device(int64_t local_rank) {
  const int64_t count = cuda_device_count();
  if (local_rank < 0 || local_rank >= count) {
    throw MeshInitError(
        "init_device_mesh(\"cuda\"): LOCAL_RANK=" + std::to_string(local_rank) +
        " but only " + std::to_string(count) +
        " CUDA device(s) are visible; start at most one rank per GPU");
  }
  // Through the device-guard registry, which needs no CUDA headers here.
  c10::impl::getDeviceGuardImpl(c10::DeviceType::CUDA)
      ->setDevice(c10::Device(
          c10::DeviceType::CUDA, static_cast<c10::DeviceIndex>(local_rank)));
  return local_rank;
}

int64_t current_cuda_device() {
  return c10::impl::getDeviceGuardImpl(c10::DeviceType::CUDA)
      ->getDevice()
      .index();
}

namespace {

bool on_cuda(const std::vector<at::Tensor>& tensors) {
  return !tensors.empty() && tensors.front().is_cuda();
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

// Gloo has no bool, int16 or complex, and libtorch 1.13's no bfloat16
// ("Invalid scalar type"). Where bytes are only moved (broadcast, gathers)
// a view of the same bytes travels: bool as uint8, int16 (and 1.13's
// bfloat16) as half, copied bit for bit, complex as its real pairs; results
// land in place.
constexpr bool kGlooHasBFloat16 = MESHGUARD_TORCH_BACKENDS;

// The dtype a reduction is done in where Gloo cannot reduce the tensor's
// own (and a view would not add up): int16 as int32, 1.13's bfloat16 as
// float, in a copy that `land` writes back.
c10::optional<at::ScalarType> widened(at::ScalarType t) {
  if (t == at::kShort) {
    return at::kInt;
  }
  if (t == at::kBFloat16 && !kGlooHasBFloat16) {
    return at::kFloat;
  }
  return c10::nullopt;
}

at::Tensor on_the_wire(const at::Tensor& t) {
  switch (t.scalar_type()) {
    case at::kBool:
      return t.view(at::kByte);
    case at::kBFloat16:
      return kGlooHasBFloat16 ? t : t.view(at::kHalf);
    case at::kShort:
      return t.view(at::kHalf);
    case at::kComplexFloat:
    case at::kComplexDouble:
      return at::view_as_real(t);
    default:
      return t;
  }
}

// Where values are reduced, a view must also add up: bool as uint8 (see
// wire_op), complex as its real pairs (a sum of pairs is the complex sum),
// the others widened.
at::Tensor to_reduce(const at::Tensor& t) {
  const auto wide = widened(t.scalar_type());
  return wide ? t.to(*wide) : on_the_wire(t);
}

// (used by reduce_scatter, which libtorch 1.13's Gloo lacks)
[[maybe_unused]] at::Tensor reduce_output(const at::Tensor& t) {
  const auto wide = widened(t.scalar_type());
  // *wide: libtorch 1.13's dtype() takes a c10::optional, not a std::optional.
  // NOLINTNEXTLINE(bugprone-optional-value-conversion)
  return wide ? at::empty(t.sizes(), t.options().dtype(*wide)) : on_the_wire(t);
}

void land(at::Tensor& t, const at::Tensor& wire) {
  if (widened(t.scalar_type())) {
    t.copy_(wire);
  }
}

std::vector<at::Tensor> on_the_wire(const std::vector<at::Tensor>& tensors) {
  std::vector<at::Tensor> out;
  out.reserve(tensors.size());
  for (const auto& t : tensors) {
    out.push_back(on_the_wire(t));
  }
  return out;
}

// On bytes that are 0 or 1, a sum is an "or" (MAX) and a product an "and"
// (MIN), which keep every byte a valid bool.
ReduceOp wire_op(const std::vector<at::Tensor>& tensors, ReduceOp op) {
  if (tensors.empty() || tensors[0].scalar_type() != at::kBool) {
    return op;
  }
  return op == ReduceOp::SUM    ? ReduceOp::MAX
      : op == ReduceOp::PRODUCT ? ReduceOp::MIN
                                : op;
}

} // namespace

void broadcast(
    const Group& pg,
    std::vector<at::Tensor>& tensors,
    int64_t root,
    std::chrono::milliseconds timeout) {
  if (detail::debug_collectives_on()) {
    detail::check_collective(
        *pg, "broadcast", tensors, "root " + std::to_string(root));
  }
  detail::check_same_sizes(pg, tensors, "broadcast", timeout);
  c10d::BroadcastOptions opts;
  opts.rootRank = root;
  opts.timeout = timeout;
  std::vector<at::Tensor> wire = on_the_wire(tensors);
  detail::wait_for_work(
      pg, pg->broadcast(wire, opts), on_cuda(tensors), timeout, "broadcast");
}

void all_reduce(
    const Group& pg,
    std::vector<at::Tensor>& tensors,
    ReduceOp op,
    std::chrono::milliseconds timeout) {
  if (detail::debug_collectives_on()) {
    detail::check_collective(
        *pg, "allreduce", tensors, std::string(to_string(op)));
  }
  detail::check_same_sizes(pg, tensors, "all_reduce", timeout);
  c10d::AllreduceOptions opts;
  opts.reduceOp = to_c10d(wire_op(tensors, op));
  opts.timeout = timeout;
  std::vector<at::Tensor> wire;
  wire.reserve(tensors.size());
  for (const auto& t : tensors) {
    wire.push_back(to_reduce(t));
  }
  detail::wait_for_work(
      pg, pg->allreduce(wire, opts), on_cuda(tensors), timeout, "all_reduce");
  for (size_t i = 0; i < tensors.size(); ++i) {
    land(tensors[i], wire[i]);
  }
  if (op == ReduceOp::AVG) {
    for (auto& t : tensors) {
      t.div_(pg->getSize());
    }
  }
}

void barrier(const Group& pg, std::chrono::milliseconds timeout) {
  c10d::BarrierOptions opts;
  opts.timeout = timeout;
  detail::wait_for_work(pg, pg->barrier(opts), false, timeout, "barrier");
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
  std::vector<std::vector<at::Tensor>> out{on_the_wire(outputs)};
  std::vector<at::Tensor> in{on_the_wire(input)};
  c10d::AllgatherOptions opts;
  opts.timeout = timeout;
  detail::wait_for_work(
      pg, pg->allgather(out, in, opts), input.is_cuda(), timeout, "all_gather");
}

bool reduce_scatter(
    const Group& pg,
    at::Tensor& output,
    at::Tensor& input,
    ReduceOp op,
    std::chrono::milliseconds timeout) {
#if MESHGUARD_TORCH_BACKENDS
  if (detail::debug_collectives_on()) {
    detail::check_collective(
        *pg, "reduce_scatter", {input}, std::string(to_string(op)));
  }
  detail::check_same_sizes(pg, {input}, "reduce_scatter", timeout);
  c10d::ReduceScatterOptions opts;
  opts.reduceOp = to_c10d(wire_op({input}, op));
  opts.timeout = timeout;
  at::Tensor wire_out = reduce_output(output);
  at::Tensor wire_in = to_reduce(input);
  // libtorch 2.13 deprecates _reduce_scatter_base for reduce_scatter_single,
  // which older 2.x releases (the GPU check's 2.11) may lack; the alias
  // still works everywhere, so its deprecation is silenced here alone.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  auto work = pg->_reduce_scatter_base(wire_out, wire_in, opts);
#pragma GCC diagnostic pop
  detail::wait_for_work(pg, work, input.is_cuda(), timeout, "reduce_scatter");
  land(output, wire_out);
  if (op == ReduceOp::AVG) {
    output.div_(pg->getSize());
  }
  return true;
#else
  // libtorch 1.13's ProcessGroupGloo has none (its NCCL group has, but the
  // all-reduce the caller falls back to is right on both).
  (void)pg, (void)output, (void)input, (void)op, (void)timeout;
  return false;
#endif
}

} // namespace compat
} // namespace meshguard
