// meshguard's side of the message oracle (compare_messages.py): on every rank
// of a meshguard-launch job, make the mistakes whose error meshguard promises
// to word as PyTorch does, and print the first line of each message as
//   ORACLE rank=<r> case=<name> line=<first line>
// pytorch_messages.py makes the same mistakes in PyTorch's Python DTensor.

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <string>

#include <ATen/ATen.h>

#include <meshguard/meshguard.h>

namespace {

int64_t env_int(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr) {
    std::fprintf(
        stderr,
        "%s is not set: run this program through scripts/meshguard-launch\n",
        name);
    std::exit(2);
  }
  return std::atoll(v);
}

std::string first_line(const char* what) {
  std::string s(what);
  return s.substr(0, s.find('\n'));
}

void report(
    int64_t rank,
    const char* name,
    const std::function<void()>& mistake) {
  std::string line;
  try {
    mistake();
    line = "<no error>";
  } catch (const std::exception& e) {
    line = first_line(e.what());
  }
  std::printf(
      "ORACLE rank=%lld case=%s line=%s\n",
      static_cast<long long>(rank),
      name,
      line.c_str());
  std::fflush(stdout);
}

} // namespace

int main() {
  const int64_t rank = env_int("RANK");
  auto mesh = meshguard::init_device_mesh("cpu", {env_int("WORLD_SIZE")});

  // 1. A broadcast whose arguments carry no DeviceMesh: no tensor at all, and
  //    (the seed's case 1) only plain tensors.
  report(rank, "no_mesh.empty", [] { meshguard::dist::broadcast_({}, 0); });
  report(rank, "no_mesh.plain", [] {
    meshguard::dist::broadcast_({at::ones({4, 4})}, 0);
  });

  // 2. A tensor op on a DTensor and a non-scalar plain tensor.
  auto sharded = meshguard::distribute_tensor(
      at::ones({4, 4}), mesh, {meshguard::Shard{0}});
  report(rank, "mixed.op", [&] { (void)(sharded + at::ones({4, 4})); });

  // 3. A collective given a DTensor and a plain tensor.
  auto replicated = meshguard::distribute_tensor(
      at::ones({4, 4}), mesh, {meshguard::Replicate{}});
  report(rank, "mixed.collective", [&] {
    meshguard::dist::broadcast_({replicated, at::ones({4, 4})}, 0);
  });
  return 0;
}
