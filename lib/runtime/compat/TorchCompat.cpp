#include "compat/TorchCompat.h"

#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#include <torch/version.h>

#ifdef USE_C10D_NCCL
#include <c10/cuda/CUDAFunctions.h>
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif

#include <meshguard/runtime/Errors.h>

#define MESHGUARD_TORCH_2 (TORCH_VERSION_MAJOR >= 2)

namespace meshguard {
namespace compat {

bool have_nccl() {
#ifdef USE_C10D_NCCL
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
  opts.waitWorkers = true;
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
#if MESHGUARD_TORCH_2
  auto backend = c10::make_intrusive<c10d::ProcessGroupGloo>(store, rank, size, options);
  auto pg = c10::make_intrusive<c10d::ProcessGroup>(store, rank, size);
  pg->setDefaultBackend(c10d::ProcessGroup::BackendType::GLOO);
  pg->setBackend(c10::DeviceType::CPU, c10d::ProcessGroup::BackendType::GLOO, backend);
  return pg;
#else
  return c10::make_intrusive<c10d::ProcessGroupGloo>(store, rank, size, options);
#endif
}

Group make_nccl_group(
    const c10::intrusive_ptr<c10d::Store>& store,
    int64_t rank,
    int64_t size,
    std::chrono::milliseconds timeout) {
#ifdef USE_C10D_NCCL
  auto options = c10d::ProcessGroupNCCL::Options::create();
  options->timeout = timeout;
#if MESHGUARD_TORCH_2
  auto backend = c10::make_intrusive<c10d::ProcessGroupNCCL>(store, rank, size, options);
  auto pg = c10::make_intrusive<c10d::ProcessGroup>(store, rank, size);
  pg->setDefaultBackend(c10d::ProcessGroup::BackendType::NCCL);
  pg->setBackend(c10::DeviceType::CUDA, c10d::ProcessGroup::BackendType::NCCL, backend);
  return pg;
#else
  return c10::make_intrusive<c10d::ProcessGroupNCCL>(store, rank, size, options);
#endif
#else
  (void)store;
  (void)rank;
  (void)size;
  (void)timeout;
  throw MeshInitError(
      "init_device_mesh(\"cuda\"): this libtorch was built without NCCL (its torch target does not "
      "define USE_C10D_NCCL). Configure meshguard against a CUDA build of PyTorch (Torch_DIR="
      "$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')/Torch) or use a \"cpu\" mesh.");
#endif
}

void bind_local_device(int64_t local_rank) {
#ifdef USE_C10D_NCCL
  const auto count = static_cast<int64_t>(c10::cuda::device_count());
  if (count == 0) {
    throw MeshInitError("init_device_mesh(\"cuda\"): this machine has no CUDA device; use a \"cpu\" mesh");
  }
  if (local_rank < 0 || local_rank >= count) {
    throw MeshInitError("init_device_mesh(\"cuda\"): LOCAL_RANK=" + std::to_string(local_rank) + " but only " +
                        std::to_string(count) + " CUDA device(s) are visible; start at most one rank per GPU");
  }
  c10::cuda::set_device(static_cast<c10::DeviceIndex>(local_rank));
#else
  (void)local_rank;
  make_nccl_group({}, 0, 0, {}); // throws the explanation
#endif
}

namespace {

void wait(const c10::intrusive_ptr<c10d::Work>& work, std::chrono::milliseconds timeout) {
  work->wait(timeout);
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
  c10d::BroadcastOptions opts;
  opts.rootRank = root;
  opts.timeout = timeout;
  wait(pg->broadcast(tensors, opts), timeout);
}

void all_reduce(const Group& pg, std::vector<at::Tensor>& tensors, ReduceOp op, std::chrono::milliseconds timeout) {
  c10d::AllreduceOptions opts;
  opts.reduceOp = to_c10d(op);
  opts.timeout = timeout;
  wait(pg->allreduce(tensors, opts), timeout);
  if (op == ReduceOp::AVG) {
    for (auto& t : tensors) {
      t.div_(pg->getSize());
    }
  }
}

void barrier(const Group& pg, std::chrono::milliseconds timeout) {
  c10d::BarrierOptions opts;
  opts.timeout = timeout;
  wait(pg->barrier(opts), timeout);
}

void all_gather(
    const Group& pg,
    std::vector<at::Tensor>& outputs,
    const at::Tensor& input,
    std::chrono::milliseconds timeout) {
  std::vector<std::vector<at::Tensor>> out{outputs};
  std::vector<at::Tensor> in{input};
  c10d::AllgatherOptions opts;
  opts.timeout = timeout;
  wait(pg->allgather(out, in, opts), timeout);
  outputs = out[0];
}

} // namespace compat
} // namespace meshguard
