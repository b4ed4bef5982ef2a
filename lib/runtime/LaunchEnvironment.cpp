#include "LaunchEnvironment.h"

#include <cstdlib>

#include <meshguard/runtime/Errors.h>

namespace meshguard {
namespace detail {

namespace {

std::string require_env(const char* name, const std::string& device_type) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') {
    throw MeshInitError(
        std::string("init_device_mesh(\"") + device_type +
        "\"): environment variable " + name +
        " is not set; launch with torchrun or scripts/meshguard-launch (which set RANK, WORLD_SIZE, "
        "MASTER_ADDR, MASTER_PORT, LOCAL_RANK), or pass MeshOptions::store with rank and world_size");
  }
  return value;
}

int64_t parse_int(const std::string& value, const char* name) {
  char* end = nullptr;
  long long v = std::strtoll(value.c_str(), &end, 10);
  if (end == value.c_str() || *end != '\0') {
    throw MeshInitError(
        std::string("init_device_mesh: environment variable ") + name + "='" +
        value + "' is not an integer");
  }
  return v;
}

} // namespace

std::chrono::milliseconds resolve_timeout(std::chrono::milliseconds requested) {
  if (requested.count() > 0) {
    return requested;
  }
  if (const char* env = std::getenv("MESHGUARD_TIMEOUT_S")) {
    double seconds = std::atof(env);
    if (seconds > 0) {
      return std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000));
    }
  }
  return std::chrono::seconds(300);
}

LaunchEnvironment read_launch_environment(const std::string& device_type) {
  LaunchEnvironment env;
  env.rank = parse_int(require_env("RANK", device_type), "RANK");
  env.world_size =
      parse_int(require_env("WORLD_SIZE", device_type), "WORLD_SIZE");
  env.master_addr = require_env("MASTER_ADDR", device_type);
  env.master_port =
      parse_int(require_env("MASTER_PORT", device_type), "MASTER_PORT");
  return env;
}

void check_rank_in_world(const LaunchEnvironment& env) {
  if (env.rank < 0 || env.rank >= env.world_size) {
    throw MeshInitError(
        "init_device_mesh: RANK=" + std::to_string(env.rank) +
        " is not in [0, WORLD_SIZE=" + std::to_string(env.world_size) + ")");
  }
}

int64_t read_local_rank(const std::string& device_type, bool required) {
  if (required) {
    return parse_int(require_env("LOCAL_RANK", device_type), "LOCAL_RANK");
  }
  const char* local_rank = std::getenv("LOCAL_RANK");
  return local_rank != nullptr && *local_rank != '\0'
      ? parse_int(local_rank, "LOCAL_RANK")
      : -1;
}

bool is_loopback(const std::string& host) {
  return host == "localhost" || host.rfind("127.", 0) == 0 || host == "::1";
}

} // namespace detail
} // namespace meshguard
