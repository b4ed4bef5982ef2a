#include <meshguard/runtime/DeviceMesh.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <map>
#include <mutex>
#include <numeric>
#include <ostream>
#include <sstream>
#include <tuple>

#include <c10/util/Exception.h>
#include <signal.h>

#include <meshguard/runtime/Errors.h>

#include "Internal.h"
#include "compat/TorchCompat.h"

namespace meshguard {

namespace {

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

std::string require_env(const char* name, const std::string& device_type) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') {
    throw MeshInitError(
        std::string("init_device_mesh(\"") + device_type + "\"): environment variable " + name +
        " is not set; launch with torchrun or scripts/meshguard-launch (which set RANK, WORLD_SIZE, "
        "MASTER_ADDR, MASTER_PORT, LOCAL_RANK), or pass MeshOptions::store with rank and world_size");
  }
  return value;
}

int64_t parse_int(const std::string& value, const char* name) {
  char* end = nullptr;
  long long v = std::strtoll(value.c_str(), &end, 10);
  if (end == value.c_str() || *end != '\0') {
    throw MeshInitError(std::string("init_device_mesh: environment variable ") + name + "='" + value +
                        "' is not an integer");
  }
  return v;
}

bool is_loopback(const std::string& host) {
  return host == "localhost" || host.rfind("127.", 0) == 0 || host == "::1";
}

// One TCPStore per (address, port) in a process: rank 0 serves it and can
// bind the port only once, so later meshes reuse it.
c10::intrusive_ptr<c10d::Store> env_store(
    const std::string& addr,
    int64_t port,
    int64_t rank,
    int64_t world_size,
    std::chrono::milliseconds timeout) {
  static std::mutex mu;
  static auto* stores = new std::map<std::tuple<std::string, int64_t, int64_t>, c10::intrusive_ptr<c10d::Store>>();
  std::lock_guard<std::mutex> lock(mu);
  auto key = std::make_tuple(addr, port, rank);
  auto it = stores->find(key);
  if (it != stores->end()) {
    return it->second;
  }
  auto store = compat::make_tcp_store(addr, static_cast<uint16_t>(port), rank == 0, world_size, timeout);
  stores->emplace(key, store);
  return store;
}

// Meshes are numbered in creation order, the same on every rank, so their
// groups get distinct store prefixes.
int64_t next_mesh_id(const c10d::Store* store) {
  static std::mutex mu;
  static auto* counters = new std::map<const c10d::Store*, int64_t>();
  std::lock_guard<std::mutex> lock(mu);
  return (*counters)[store]++;
}

std::vector<int64_t> unravel(int64_t index, const std::vector<int64_t>& shape) {
  std::vector<int64_t> coord(shape.size());
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    coord[d] = index % shape[d];
    index /= shape[d];
  }
  return coord;
}

int64_t ravel(const std::vector<int64_t>& coord, const std::vector<int64_t>& shape) {
  int64_t index = 0;
  for (size_t d = 0; d < shape.size(); ++d) {
    index = index * shape[d] + coord[d];
  }
  return index;
}

std::vector<int64_t> ranks_along(const detail::MeshState& s, int64_t dim) {
  std::vector<int64_t> out;
  auto coord = s.coordinate;
  for (int64_t i = 0; i < s.shape[dim]; ++i) {
    coord[dim] = i;
    out.push_back(s.mesh[ravel(coord, s.shape)]);
  }
  return out;
}

// A peer that dies mid-collective closes its sockets, and the next write to
// one raises SIGPIPE, which kills this rank instead of failing the
// collective with an error. Ignore it, unless the program handles it itself.
void ignore_sigpipe_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction current {};
    if (::sigaction(SIGPIPE, nullptr, &current) == 0 && current.sa_handler == SIG_DFL) {
      ::signal(SIGPIPE, SIG_IGN);
    }
  });
}

void check_shape(const std::vector<int64_t>& shape, int64_t world_size, const std::string& device_type) {
  if (shape.empty()) {
    throw MeshInitError("init_device_mesh(\"" + device_type + "\"): the mesh shape is empty");
  }
  int64_t n = 1;
  for (auto s : shape) {
    if (s <= 0) {
      throw MeshInitError("init_device_mesh(\"" + device_type + "\"): mesh dimensions must be positive");
    }
    n *= s;
  }
  if (n != world_size) {
    std::ostringstream os;
    os << "init_device_mesh(\"" << device_type << "\"): mesh shape " << c10::IntArrayRef(shape) << " holds " << n
       << " ranks but the world size is " << world_size;
    throw MeshInitError(os.str());
  }
}

} // namespace

DeviceMesh::DeviceMesh(std::shared_ptr<const detail::MeshState> state) : state_(std::move(state)) {}

DeviceMesh::DeviceMesh(
    std::string device_type,
    std::vector<int64_t> shape,
    std::vector<int64_t> mesh,
    std::vector<c10::intrusive_ptr<c10d::ProcessGroup>> dim_groups,
    int64_t global_rank) {
  auto s = std::make_shared<detail::MeshState>();
  check_shape(shape, static_cast<int64_t>(mesh.size()), device_type);
  if (dim_groups.size() != shape.size()) {
    throw MeshInitError("DeviceMesh: need one process group per mesh dimension (" + std::to_string(shape.size()) +
                        "), got " + std::to_string(dim_groups.size()));
  }
  auto it = std::find(mesh.begin(), mesh.end(), global_rank);
  if (it == mesh.end()) {
    throw MeshInitError("DeviceMesh: rank " + std::to_string(global_rank) + " is not in the mesh");
  }
  s->device_type = std::move(device_type);
  s->shape = std::move(shape);
  s->mesh = std::move(mesh);
  s->global_rank = global_rank;
  s->coordinate = unravel(it - s->mesh.begin(), s->shape);
  for (size_t d = 0; d < dim_groups.size(); ++d) {
    if (!dim_groups[d] || dim_groups[d]->getSize() != s->shape[d] ||
        dim_groups[d]->getRank() != s->coordinate[d]) {
      throw MeshInitError("DeviceMesh: the process group for mesh dimension " + std::to_string(d) +
                          " must have size " + std::to_string(s->shape[d]) + " and this rank at index " +
                          std::to_string(s->coordinate[d]));
    }
  }
  if (s->device_type == "cuda") {
    compat::require_cuda("DeviceMesh(\"cuda\")");
    s->device_index = compat::current_cuda_device();
  }
  s->groups = std::move(dim_groups);
  s->timeout = resolve_timeout({});
  state_ = std::move(s);
}

int64_t DeviceMesh::ndim() const {
  return static_cast<int64_t>(state_->shape.size());
}
const std::vector<int64_t>& DeviceMesh::shape() const {
  return state_->shape;
}
int64_t DeviceMesh::size(int64_t dim) const {
  TORCH_CHECK(dim >= 0 && dim < ndim(), "DeviceMesh::size: mesh dim ", dim, " out of range for a ", ndim(), "-d mesh");
  return state_->shape[dim];
}
int64_t DeviceMesh::size() const {
  return static_cast<int64_t>(state_->mesh.size());
}
int64_t DeviceMesh::get_rank() const {
  return state_->global_rank;
}
const std::vector<int64_t>& DeviceMesh::coordinate() const {
  return state_->coordinate;
}
int64_t DeviceMesh::get_local_rank(int64_t dim) const {
  return state_->coordinate.at(dim);
}
const std::string& DeviceMesh::device_type() const {
  return state_->device_type;
}
c10::Device DeviceMesh::device() const {
  if (state_->device_index < 0) {
    return c10::Device(c10::DeviceType::CPU);
  }
  return c10::Device(c10::DeviceType::CUDA, static_cast<c10::DeviceIndex>(state_->device_index));
}
const std::vector<int64_t>& DeviceMesh::mesh() const {
  return state_->mesh;
}
std::vector<int64_t> DeviceMesh::group_ranks(int64_t dim) const {
  return ranks_along(*state_, dim);
}
const c10::intrusive_ptr<c10d::ProcessGroup>& DeviceMesh::get_group(int64_t dim) const {
  if (dim < 0 || dim >= ndim()) {
    throw PlacementError("mesh dim " + std::to_string(dim) + " is out of range for " + to_string());
  }
  return state_->groups[dim];
}
std::chrono::milliseconds DeviceMesh::timeout() const {
  return state_->timeout;
}

bool DeviceMesh::operator==(const DeviceMesh& other) const {
  if (state_ == other.state_) {
    return true;
  }
  return state_->device_type == other.state_->device_type && state_->shape == other.state_->shape &&
      state_->mesh == other.state_->mesh;
}

std::string DeviceMesh::to_string() const {
  // Nested brackets like PyTorch's repr of the mesh tensor.
  std::ostringstream os;
  os << "DeviceMesh('" << state_->device_type << "', ";
  const auto& shape = state_->shape;
  std::vector<int64_t> coord(shape.size(), 0);
  for (size_t i = 0; i < state_->mesh.size(); ++i) {
    coord = unravel(static_cast<int64_t>(i), shape);
    size_t opens = 0;
    for (size_t d = shape.size(); d > 0 && coord[d - 1] == 0; --d) {
      ++opens;
    }
    if (i > 0) {
      os << ", ";
    }
    os << std::string(opens, '[') << state_->mesh[i];
    size_t closes = 0;
    for (size_t d = shape.size(); d > 0 && coord[d - 1] == shape[d - 1] - 1; --d) {
      ++closes;
    }
    os << std::string(closes, ']');
  }
  os << ")";
  return os.str();
}

std::ostream& operator<<(std::ostream& os, const DeviceMesh& mesh) {
  return os << mesh.to_string();
}

DeviceMesh init_device_mesh(const std::string& device_type, std::vector<int64_t> shape, const MeshOptions& options) {
  if (device_type != "cpu" && device_type != "cuda") {
    throw MeshInitError("init_device_mesh: device type must be \"cpu\" or \"cuda\", got \"" + device_type + "\"");
  }
  const bool cuda = device_type == "cuda";
  if (cuda) {
    // Before reading the environment: no NCCL or no GPU is the real problem.
    compat::require_cuda("init_device_mesh(\"cuda\")");
  }
  int64_t device_index = -1;
  auto timeout = resolve_timeout(options.timeout);
  c10::intrusive_ptr<c10d::Store> store = options.store;
  int64_t rank = options.rank;
  int64_t world_size = options.world_size;
  std::string hostname = options.gloo_hostname;
  if (store) {
    if (rank < 0 || world_size <= 0) {
      throw MeshInitError("init_device_mesh: MeshOptions::store needs MeshOptions::rank and ::world_size");
    }
    if (cuda) {
      const char* local_rank = std::getenv("LOCAL_RANK");
      device_index = local_rank != nullptr && *local_rank != '\0'
          ? compat::bind_local_device(parse_int(local_rank, "LOCAL_RANK"))
          : compat::current_cuda_device();
    }
  } else {
    rank = parse_int(require_env("RANK", device_type), "RANK");
    world_size = parse_int(require_env("WORLD_SIZE", device_type), "WORLD_SIZE");
    auto addr = require_env("MASTER_ADDR", device_type);
    auto port = parse_int(require_env("MASTER_PORT", device_type), "MASTER_PORT");
    if (cuda) {
      device_index = compat::bind_local_device(parse_int(require_env("LOCAL_RANK", device_type), "LOCAL_RANK"));
    }
    if (rank < 0 || rank >= world_size) {
      throw MeshInitError("init_device_mesh: RANK=" + std::to_string(rank) + " is not in [0, WORLD_SIZE=" +
                          std::to_string(world_size) + ")");
    }
    if (hostname.empty() && is_loopback(addr)) {
      hostname = "127.0.0.1";
    }
    store = env_store(addr, port, rank, world_size, timeout);
  }
  check_shape(shape, world_size, device_type);
  compat::set_store_timeout(store, timeout);

  auto s = std::make_shared<detail::MeshState>();
  s->device_type = device_type;
  s->shape = std::move(shape);
  s->mesh.resize(world_size);
  std::iota(s->mesh.begin(), s->mesh.end(), 0);
  s->global_rank = rank;
  s->coordinate = unravel(rank, s->shape);
  s->timeout = timeout;
  s->device_index = device_index;
  const int64_t mesh_id = next_mesh_id(store.get());
  ignore_sigpipe_once();
  for (int64_t d = 0; d < static_cast<int64_t>(s->shape.size()); ++d) {
    auto ranks = ranks_along(*s, d);
    std::ostringstream prefix;
    prefix << "meshguard/mesh" << mesh_id << "/dim" << d << "/ranks";
    for (auto r : ranks) {
      prefix << "_" << r;
    }
    auto group_store = compat::make_prefix_store(prefix.str(), store);
    const int64_t group_rank = s->coordinate[d];
    const int64_t group_size = s->shape[d];
    s->groups.push_back(
        cuda ? compat::make_nccl_group(group_store, group_rank, group_size, timeout)
                              : compat::make_gloo_group(group_store, group_rank, group_size, timeout, hostname));
  }
  // Gloo connects pairs lazily on one side: without a barrier a fast rank
  // could finish and exit while a slow peer is still connecting to it.
  // (NCCL connects in its first collective; its barrier would also have to
  // guess a GPU.)
  for (const auto& group : s->groups) {
    if (!cuda && group->getSize() > 1) {
      compat::barrier(group, timeout);
    }
  }
  return DeviceMesh(std::shared_ptr<const detail::MeshState>(std::move(s)));
}

} // namespace meshguard
