// CUDA meshes (NCCL, one process). Without NCCL or a GPU each test either
// checks the error that explains it or is SKIPPED with the reason; the GPU
// run is scripts/gpu-check.sh. NCCL refuses two ranks on one GPU, so these
// use a world of one; MultiRankCuda.* covers more GPUs.

#include <cstdlib>
#include <string>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/cuda.h>
#include <torch/torch.h>
#include <torch/csrc/distributed/c10d/HashStore.hpp>

#include <meshguard/meshguard.h>

#include "EnvGuard.h"
#include "RankUtil.h"

using namespace meshguard;
using meshguard::testing::EnvGuard;

namespace {

constexpr bool kHaveNccl = MESHGUARD_TEST_HAVE_NCCL != 0;

int64_t gpus() {
  return static_cast<int64_t>(torch::cuda::device_count());
}

// Empty when this machine can run a CUDA mesh, else why not.
std::string why_no_cuda_mesh() {
  if (!kHaveNccl) {
    return "libtorch has no NCCL (configure against a CUDA PyTorch, e.g. with scripts/gpu-check.sh)";
  }
  if (gpus() == 0) {
    return "no CUDA device is visible";
  }
  return "";
}

#define MG_REQUIRE_CUDA_MESH()                  \
  do {                                          \
    const std::string why = why_no_cuda_mesh(); \
    if (!why.empty()) {                         \
      GTEST_SKIP() << why;                      \
    }                                           \
  } while (0)

int free_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return 0; // what getsockname reports for a socket that is not bound
  }
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

// A world of one through the torchrun variables, as a real job starts:
// RANK=0, WORLD_SIZE=1, LOCAL_RANK=0 (made once per process).
DeviceMesh cuda_mesh() {
  static DeviceMesh mesh = [] {
    const std::string port = std::to_string(free_port());
    EnvGuard rank("RANK", "0"), world("WORLD_SIZE", "1"),
        addr("MASTER_ADDR", "127.0.0.1"),
        master_port("MASTER_PORT", port.c_str()), local("LOCAL_RANK", "0");
    return init_device_mesh("cuda", {1});
  }();
  return mesh;
}

DeviceMesh cpu_mesh() {
  MeshOptions opts;
  opts.store = c10::make_intrusive<c10d::HashStore>();
  opts.rank = 0;
  opts.world_size = 1;
  opts.gloo_hostname = "127.0.0.1";
  return init_device_mesh("cpu", {1}, opts);
}

} // namespace

TEST(CudaMesh, WithoutNcclIsAClearError) {
  if (kHaveNccl) {
    GTEST_SKIP() << "libtorch has NCCL; the no-NCCL error cannot happen here";
  }
  EnvGuard rank("RANK", "0"), world("WORLD_SIZE", "1"),
      addr("MASTER_ADDR", "127.0.0.1"), port("MASTER_PORT", "1"),
      local("LOCAL_RANK", "0");
  MG_EXPECT_THROW_WITH(
      init_device_mesh("cuda", {1}),
      MeshInitError,
      "this libtorch was built without NCCL");
  MeshOptions opts;
  opts.store = c10::make_intrusive<c10d::HashStore>();
  opts.rank = 0;
  opts.world_size = 1;
  MG_EXPECT_THROW_WITH(
      init_device_mesh("cuda", {1}, opts),
      MeshInitError,
      "or use a \"cpu\" mesh");
  // A mesh over the user's own groups cannot claim CUDA either.
  auto cpu = cpu_mesh();
  MG_EXPECT_THROW_WITH(
      DeviceMesh("cuda", {1}, {0}, {cpu.get_group(0)}, 0),
      MeshInitError,
      "DeviceMesh(\"cuda\"): this libtorch was built without NCCL");
}

// scripts/gpu-check.sh runs this with CUDA_VISIBLE_DEVICES=-1.
TEST(CudaMesh, NoVisibleGpuIsAClearError) {
  if (!kHaveNccl) {
    GTEST_SKIP()
        << "libtorch has no NCCL (CudaMesh.WithoutNcclIsAClearError covers that case)";
  }
  if (gpus() > 0) {
    GTEST_SKIP()
        << gpus()
        << " GPU(s) visible; run with CUDA_VISIBLE_DEVICES=-1 to check this error";
  }
  EnvGuard rank("RANK", "0"), world("WORLD_SIZE", "1"),
      addr("MASTER_ADDR", "127.0.0.1"), port("MASTER_PORT", "1"),
      local("LOCAL_RANK", "0");
  MG_EXPECT_THROW_WITH(
      init_device_mesh("cuda", {1}),
      MeshInitError,
      "no CUDA device is visible to this process");
}

TEST(CudaMesh, NcclWorldOfOne) {
  MG_REQUIRE_CUDA_MESH();
  auto mesh = cuda_mesh();
  EXPECT_EQ(mesh.device_type(), "cuda");
  EXPECT_EQ(mesh.device(), c10::Device(c10::DeviceType::CUDA, 0));
  EXPECT_EQ(mesh.get_group(0)->getBackendName(), "nccl");
  // The group itself runs NCCL (a world of one still launches the kernel).
  auto dev = mesh.device();
  at::Tensor raw =
      at::arange(8, at::TensorOptions().device(dev).dtype(at::kFloat));
  std::vector<at::Tensor> bufs{raw};
  c10d::AllreduceOptions ar;
  mesh.get_group(0)->allreduce(bufs, ar)->wait();
  c10d::BroadcastOptions bc;
  mesh.get_group(0)->broadcast(bufs, bc)->wait();
  EXPECT_TRUE(at::equal(raw.cpu(), at::arange(8, at::kFloat)));

  at::Tensor full =
      at::arange(12, at::TensorOptions().device(dev).dtype(at::kFloat))
          .reshape({3, 4});
  at::Tensor dt = distribute_tensor(full, mesh, {Shard{1}});
  EXPECT_TRUE(to_local(dt).is_cuda());
  EXPECT_TRUE(at::equal(full_tensor(dt).cpu(), full.cpu()));
  at::Tensor r = redistribute(dt, {Replicate{}});
  EXPECT_TRUE(at::equal(to_local(r * 2 + r).cpu(), (full * 3).cpu()));
  at::Tensor plain = at::ones({4}, at::TensorOptions().device(dev));
  guarded::broadcast_({plain}, mesh, 0);
  guarded::all_reduce_({plain}, mesh, ReduceOp::AVG);
  EXPECT_TRUE(at::equal(plain.cpu(), at::ones({4})));
  MG_EXPECT_THROW_WITH(
      dist::broadcast_({plain}, 0),
      MeshNotFoundError,
      "found no DeviceMesh from dtensor args for c10d.broadcast_.default");
}

TEST(CudaMesh, FromUserNcclGroups) {
  MG_REQUIRE_CUDA_MESH();
  auto made = cuda_mesh();
  DeviceMesh mesh("cuda", {1}, {0}, {made.get_group(0)}, 0);
  EXPECT_EQ(mesh.device(), made.device());
  at::Tensor full = at::ones({2, 2}, at::TensorOptions().device(mesh.device()));
  EXPECT_TRUE(at::equal(
      full_tensor(distribute_tensor(full, mesh, {Shard{0}})).cpu(),
      at::ones({2, 2})));
}

TEST(CudaMesh, TensorOnTheWrongDeviceIsAClearError) {
  MG_REQUIRE_CUDA_MESH();
  auto mesh = cuda_mesh();
  MG_EXPECT_THROW_WITH(
      distribute_tensor(at::ones({2}), mesh, {Replicate{}}),
      PlacementError,
      "distribute_tensor: a cpu tensor cannot live on DeviceMesh('cuda', [0])");
  MG_EXPECT_THROW_WITH(
      from_local(at::ones({2}), mesh, {Replicate{}}),
      PlacementError,
      "(cuda:0)");
  MG_EXPECT_THROW_WITH(
      guarded::broadcast_({at::ones({2})}, mesh, 0),
      PlacementError,
      "a cpu tensor cannot live on");
  auto cpu = cpu_mesh();
  MG_EXPECT_THROW_WITH(
      from_local(
          at::ones({2}, at::TensorOptions().device(mesh.device())),
          cpu,
          {Replicate{}}),
      PlacementError,
      "from_local: a cuda:0 tensor cannot live on DeviceMesh('cpu', [0])");
}

TEST(CudaMesh, LocalRankBeyondTheGpusIsAClearError) {
  MG_REQUIRE_CUDA_MESH();
  const std::string beyond = std::to_string(gpus());
  EnvGuard rank("RANK", "0"), world("WORLD_SIZE", "1"),
      addr("MASTER_ADDR", "127.0.0.1"), port("MASTER_PORT", "1"),
      local("LOCAL_RANK", beyond.c_str());
  MG_EXPECT_THROW_WITH(
      init_device_mesh("cuda", {1}),
      MeshInitError,
      "LOCAL_RANK=" + beyond + " but only " + beyond +
          " CUDA device(s) are visible");
}

TEST(CudaMesh, TensorOnAnotherGpuIsAClearError) {
  MG_REQUIRE_CUDA_MESH();
  if (gpus() < 2) {
    GTEST_SKIP() << "needs 2 GPUs, " << gpus() << " visible";
  }
  auto mesh = cuda_mesh();
  at::Tensor other = at::ones(
      {2}, at::TensorOptions().device(c10::Device(c10::DeviceType::CUDA, 1)));
  MG_EXPECT_THROW_WITH(
      from_local(other, mesh, {Replicate{}}),
      PlacementError,
      "a cuda:1 tensor cannot live on DeviceMesh('cuda', [0]), whose rank 0 uses cuda:0");
}
