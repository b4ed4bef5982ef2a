// meshguard's side of the checkpoint benchmark (run.py): on every rank of a
// 1-D mesh, `tensors` row-sharded float tensors of `rows` x 1024; saves them
// `repeats` times and loads them `repeats` times into the same placements,
// then saves them with async_save (the time until it returns: what blocks
// training; and until wait() returns), and prints the best times (seconds)
// as one line on rank 0.
//
// usage (through scripts/meshguard-launch): meshguard_checkpoint_bench DIR
// TENSORS ROWS REPEATS

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <map>

#include <meshguard/meshguard.h>

int main(int argc, char** argv) {
  if (argc != 5) {
    std::cerr << "usage: " << argv[0] << " DIR TENSORS ROWS REPEATS\n";
    return 2;
  }
  const std::string dir = argv[1];
  const int tensors = std::atoi(argv[2]);
  const int64_t rows = std::atoll(argv[3]);
  const int repeats = std::atoi(argv[4]);
  auto mesh = meshguard::init_device_mesh(
      "cpu", {std::atoll(std::getenv("WORLD_SIZE"))});
  std::map<std::string, at::Tensor> sd;
  for (int i = 0; i < tensors; ++i) {
    sd["layer" + std::to_string(i) + ".weight"] = meshguard::distribute_tensor(
        at::randn({rows, 1024}), mesh, {meshguard::Shard{0}});
  }
  using Clock = std::chrono::steady_clock;
  double best_save = 1e9, best_load = 1e9;
  for (int r = 0; r < repeats; ++r) {
    auto t0 = Clock::now();
    meshguard::checkpoint::save(sd, dir, mesh);
    best_save = std::min(
        best_save, std::chrono::duration<double>(Clock::now() - t0).count());
  }
  for (int r = 0; r < repeats; ++r) {
    auto t0 = Clock::now();
    meshguard::checkpoint::load(sd, dir);
    // Every rank done: the slowest rank's time is the load's.
    meshguard::full_tensor(meshguard::distribute_tensor(
        at::zeros({1}), mesh, {meshguard::Replicate{}}));
    best_load = std::min(
        best_load, std::chrono::duration<double>(Clock::now() - t0).count());
  }
  // async_save's collectives run on a mesh of their own.
  auto coordination = meshguard::init_device_mesh("cpu", {mesh.size()});
  double best_block = 1e9, best_total = 1e9;
  for (int r = 0; r < repeats; ++r) {
    auto t0 = Clock::now();
    auto pending =
        meshguard::checkpoint::async_save(sd, dir, mesh, coordination);
    const double block =
        std::chrono::duration<double>(Clock::now() - t0).count();
    pending.wait();
    best_block = std::min(best_block, block);
    best_total = std::min(
        best_total, std::chrono::duration<double>(Clock::now() - t0).count());
  }
  if (mesh.get_rank() == 0) {
    std::cout << "meshguard save " << best_save << " load " << best_load
              << " async_block " << best_block << " async_total " << best_total
              << "\n";
  }
  return 0;
}
