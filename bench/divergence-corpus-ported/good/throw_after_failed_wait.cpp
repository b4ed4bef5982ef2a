// A process group built with the rank, a throw when a collective fails and a
// retry loop around another: a collective's failure fails the job on every
// rank, it is no schedule; the group's handle is valid on every rank.
// Shape of: pytorch test/cpp/c10d/ProcessGroupGlooTest.cpp (groups built
//   with the rank from a FileStore/TCPStore, work->wait() checks) (issue #44
//   causes (1) and (2))
#include <cstdlib>
#include <stdexcept>
#include <torch/csrc/distributed/c10d/FileStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

void sync_weights(const std::string &path, int size) {
  const int rank = std::atoi(std::getenv("RANK"));
  auto store = c10::make_intrusive<c10d::FileStore>(path, size);
  auto options = c10d::ProcessGroupGloo::Options::create();
  options->devices.push_back(
      c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
  auto pg = c10::make_intrusive<c10d::ProcessGroupGloo>(store, rank, size,
                                                        options);
  if (!pg)
    throw std::runtime_error("no process group");
  std::vector<at::Tensor> weights = {at::full({8}, rank)};
  auto work = pg->broadcast(weights);
  if (!work->wait())
    throw std::runtime_error("broadcast failed");
  bool ok = false;
  while (!ok) {
    try {
      pg->allreduce(weights)->wait();
      ok = true;
    } catch (const std::exception &e) {
    }
  }
  pg->barrier()->wait();
}

void tcp_group(int size) {
  const int rank = std::atoi(std::getenv("RANK"));
  auto store = c10::make_intrusive<c10d::TCPStore>("127.0.0.1", 29500, size,
                                                   rank == 0);
  c10d::ProcessGroupGloo pg(store, rank, size);
  pg.barrier()->wait();
}
