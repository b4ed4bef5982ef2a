#pragma once

// What a launcher (torchrun, scripts/meshguard-launch) tells a rank through
// the environment, read with errors that name the variable.

#include <chrono>
#include <cstdint>
#include <string>

namespace meshguard {
namespace detail {

struct LaunchEnvironment {
  int64_t rank = -1;
  int64_t world_size = -1;
  std::string master_addr;
  int64_t master_port = -1;
};

// `requested` when positive, else MESHGUARD_TIMEOUT_S, else 300 s.
std::chrono::milliseconds resolve_timeout(std::chrono::milliseconds requested);

// RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT; throws MeshInitError naming a
// missing or non-integer variable. `device_type` is quoted in messages.
LaunchEnvironment read_launch_environment(const std::string& device_type);

// Throws MeshInitError unless 0 <= RANK < WORLD_SIZE.
void check_rank_in_world(const LaunchEnvironment& env);

// LOCAL_RANK: required (throws when unset) or optional (-1 when unset).
int64_t read_local_rank(const std::string& device_type, bool required);

bool is_loopback(const std::string& host);

} // namespace detail
} // namespace meshguard
