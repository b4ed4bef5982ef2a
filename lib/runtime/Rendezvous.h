#pragma once

// How init_device_mesh finds its peers: through MeshOptions::store, or
// through the launch environment and a TCPStore served by rank 0.

#include <chrono>
#include <cstdint>
#include <string>

#include <c10/util/intrusive_ptr.h>
#include <torch/csrc/distributed/c10d/Store.hpp>

#include <meshguard/runtime/DeviceMesh.h>

namespace meshguard {
namespace detail {

struct Rendezvous {
  c10::intrusive_ptr<c10d::Store> store;
  int64_t rank = -1;
  int64_t world_size = -1;
  // Address Gloo binds to (empty: the host's default interface).
  std::string gloo_hostname;
  // The rank's GPU on a "cuda" mesh, else -1.
  int64_t device_index = -1;
};

// Throws MeshInitError naming what is missing or wrong.
Rendezvous rendezvous(
    const std::string& device_type,
    const MeshOptions& options,
    std::chrono::milliseconds timeout);

} // namespace detail
} // namespace meshguard
