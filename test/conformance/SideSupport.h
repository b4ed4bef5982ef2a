#pragma once

// What both C++ sides of the conformance harness (op by op and training)
// need from their launch: the ranks' environment (scripts/meshguard-launch),
// a mesh option set over a TCPStore with the harness's timeouts, and the
// pickles the Python driver writes.

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include <ATen/core/ivalue.h>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include <meshguard/runtime/DeviceMesh.h>

namespace meshguard {
namespace conformance {

// results.py's COLLECTIVE_TIMEOUT_S and STORE_TIMEOUT_S.
constexpr std::chrono::seconds kCollectiveTimeout{15};
constexpr std::chrono::seconds kStoreTimeout{90};

inline int64_t env_int(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr) {
    throw std::runtime_error(
        std::string(name) +
        " is not set: run this through scripts/meshguard-launch");
  }
  return std::atoll(v);
}

// This rank's mesh options: the launch's TCPStore (rank 0 serves it).
inline MeshOptions launched_mesh_options() {
  const int64_t world = env_int("WORLD_SIZE"), rank = env_int("RANK");
  c10d::TCPStoreOptions opts;
  opts.port = static_cast<uint16_t>(env_int("MASTER_PORT"));
  opts.isServer = rank == 0;
  opts.numWorkers = static_cast<size_t>(world);
  opts.timeout = kStoreTimeout;
  MeshOptions mesh_options;
  mesh_options.store =
      c10::make_intrusive<c10d::TCPStore>(std::getenv("MASTER_ADDR"), opts);
  mesh_options.rank = rank;
  mesh_options.world_size = world;
  mesh_options.timeout = kCollectiveTimeout;
  return mesh_options;
}

// The items of a list, or of a tuple: the driver writes lists as tuples
// (libtorch 1.13's unpickler has no APPEND, which Python's pickler writes for
// a one-element list).
inline std::vector<c10::IValue> elements(const c10::IValue& v) {
  if (v.isTuple()) {
    const auto& items = v.toTupleRef().elements();
    return std::vector<c10::IValue>(items.begin(), items.end());
  }
  const auto& items = v.toListRef();
  return std::vector<c10::IValue>(items.begin(), items.end());
}

inline std::vector<char> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw std::runtime_error("cannot read " + path);
  }
  return std::vector<char>(std::istreambuf_iterator<char>(in), {});
}

} // namespace conformance
} // namespace meshguard
