#include <meshguard/runtime/DeviceMesh.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <numeric>
#include <ostream>
#include <sstream>

#include <c10/util/Exception.h>

#include <meshguard/runtime/Errors.h>

#include "ConsistencyCheck.h"
#include "Internal.h"
#include "LaunchEnvironment.h"
#include "MeshIndex.h"
#include "Rendezvous.h"
#include "SigPipe.h"
#include "TransportFailure.h"
#include "compat/TorchCompat.h"

namespace meshguard {

namespace {

using detail::unravel;

// Meshes are numbered in creation order, the same on every rank, so their
// groups get distinct store prefixes.
int64_t next_mesh_id(const c10d::Store* store) {
  static std::mutex mu;
  static auto* counters = new std::map<const c10d::Store*, int64_t>();
  std::lock_guard<std::mutex> lock(mu);
  return (*counters)[store]++;
}

std::vector<int64_t> ranks_along(const detail::MeshState& s, int64_t dim) {
  return detail::ranks_along(s.mesh, s.shape, s.coordinate, dim);
}

void check_shape(
    const std::vector<int64_t>& shape,
    int64_t world_size,
    const std::string& device_type) {
  if (shape.empty()) {
    throw MeshInitError(
        "init_device_mesh(\"" + device_type + "\"): the mesh shape is empty");
  }
  int64_t n = 1;
  for (auto s : shape) {
    if (s <= 0) {
      throw MeshInitError(
          "init_device_mesh(\"" + device_type +
          "\"): mesh dimensions must be positive");
    }
    n *= s;
  }
  if (n != world_size) {
    std::ostringstream os;
    os << "init_device_mesh(\"" << device_type << "\"): mesh shape "
       << c10::IntArrayRef(shape) << " holds " << n
       << " ranks but the world size is " << world_size;
    throw MeshInitError(os.str());
  }
}

// The one place a mesh's state is built: the layout checked, this rank's
// coordinate found. Groups, timeout and device are added by the caller.
std::shared_ptr<detail::MeshState> make_state(
    std::string device_type,
    std::vector<int64_t> shape,
    std::vector<int64_t> mesh,
    int64_t global_rank) {
  auto it = std::find(mesh.begin(), mesh.end(), global_rank);
  if (it == mesh.end()) {
    throw MeshInitError(
        "DeviceMesh: rank " + std::to_string(global_rank) +
        " is not in the mesh");
  }
  auto s = std::make_shared<detail::MeshState>();
  s->coordinate = unravel(it - mesh.begin(), shape);
  s->device_type = std::move(device_type);
  s->shape = std::move(shape);
  s->mesh = std::move(mesh);
  s->global_rank = global_rank;
  return s;
}

// One group per mesh dimension, each on a PrefixStore named after the mesh
// and the group's ranks.
std::vector<c10::intrusive_ptr<c10d::ProcessGroup>> make_groups(
    const detail::MeshState& s,
    const c10::intrusive_ptr<c10d::Store>& store,
    const std::string& gloo_hostname) {
  const int64_t mesh_id = next_mesh_id(store.get());
  std::vector<c10::intrusive_ptr<c10d::ProcessGroup>> groups;
  for (int64_t d = 0; d < static_cast<int64_t>(s.shape.size()); ++d) {
    std::ostringstream prefix;
    prefix << "meshguard/mesh" << mesh_id << "/dim" << d << "/ranks";
    for (auto r : ranks_along(s, d)) {
      prefix << "_" << r;
    }
    auto group_store = compat::make_prefix_store(prefix.str(), store);
    const int64_t group_rank = s.coordinate[d];
    const int64_t group_size = s.shape[d];
    groups.push_back(
        s.device_type == "cuda"
            ? compat::make_nccl_group(
                  group_store, group_rank, group_size, s.timeout)
            : compat::make_gloo_group(
                  group_store,
                  group_rank,
                  group_size,
                  s.timeout,
                  gloo_hostname));
    // Keys of their own, so that the mode can be switched on at any time.
    detail::register_debug_channel(
        groups.back().get(),
        compat::make_prefix_store("debug/" + prefix.str(), store),
        ranks_along(s, d),
        s.timeout);
  }
  return groups;
}

} // namespace

DeviceMesh::DeviceMesh(std::shared_ptr<const detail::MeshState> state)
    : state_(std::move(state)) {}

DeviceMesh::DeviceMesh(
    std::string device_type,
    std::vector<int64_t> shape,
    std::vector<int64_t> mesh,
    std::vector<c10::intrusive_ptr<c10d::ProcessGroup>> dim_groups,
    int64_t global_rank) {
  check_shape(shape, static_cast<int64_t>(mesh.size()), device_type);
  if (dim_groups.size() != shape.size()) {
    throw MeshInitError(
        "DeviceMesh: need one process group per mesh dimension (" +
        std::to_string(shape.size()) + "), got " +
        std::to_string(dim_groups.size()));
  }
  auto s = make_state(
      std::move(device_type), std::move(shape), std::move(mesh), global_rank);
  for (size_t d = 0; d < dim_groups.size(); ++d) {
    if (!dim_groups[d] || dim_groups[d]->getSize() != s->shape[d] ||
        dim_groups[d]->getRank() != s->coordinate[d]) {
      throw MeshInitError(
          "DeviceMesh: the process group for mesh dimension " +
          std::to_string(d) + " must have size " + std::to_string(s->shape[d]) +
          " and this rank at index " + std::to_string(s->coordinate[d]));
    }
  }
  if (s->device_type == "cuda") {
    compat::require_cuda("DeviceMesh(\"cuda\")");
    s->device_index = compat::current_cuda_device();
  }
  for (const auto& group : dim_groups) {
    detail::forget_debug_channel(group.get());
  }
  detail::catch_transport_failures_once();
  s->groups = std::move(dim_groups);
  s->timeout = detail::resolve_timeout({});
  state_ = std::move(s);
}

int64_t DeviceMesh::ndim() const {
  return static_cast<int64_t>(state_->shape.size());
}
const std::vector<int64_t>& DeviceMesh::shape() const {
  return state_->shape;
}
int64_t DeviceMesh::size(int64_t dim) const {
  TORCH_CHECK(
      dim >= 0 && dim < ndim(),
      "DeviceMesh::size: mesh dim ",
      dim,
      " out of range for a ",
      ndim(),
      "-d mesh");
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
  return c10::Device(
      c10::DeviceType::CUDA,
      static_cast<c10::DeviceIndex>(state_->device_index));
}
const std::vector<int64_t>& DeviceMesh::mesh() const {
  return state_->mesh;
}
std::vector<int64_t> DeviceMesh::group_ranks(int64_t dim) const {
  return ranks_along(*state_, dim);
}
const c10::intrusive_ptr<c10d::ProcessGroup>& DeviceMesh::get_group(
    int64_t dim) const {
  if (dim < 0 || dim >= ndim()) {
    throw PlacementError(
        "mesh dim " + std::to_string(dim) + " is out of range for " +
        to_string());
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
  return state_->device_type == other.state_->device_type &&
      state_->shape == other.state_->shape &&
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
    for (size_t d = shape.size(); d > 0 && coord[d - 1] == shape[d - 1] - 1;
         --d) {
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

DeviceMesh init_device_mesh(
    const std::string& device_type,
    std::vector<int64_t> shape,
    const MeshOptions& options) {
  if (device_type != "cpu" && device_type != "cuda") {
    throw MeshInitError(
        R"(init_device_mesh: device type must be "cpu" or "cuda", got ")" +
        device_type + "\"");
  }
  if (device_type == "cuda") {
    // Before reading the environment: no NCCL or no GPU is the real problem.
    compat::require_cuda("init_device_mesh(\"cuda\")");
  }
  const auto timeout = detail::resolve_timeout(options.timeout);
  auto rv = detail::rendezvous(device_type, options, timeout);
  check_shape(shape, rv.world_size, device_type);
  compat::set_store_timeout(rv.store, timeout);

  std::vector<int64_t> ranks(rv.world_size);
  std::iota(ranks.begin(), ranks.end(), 0);
  auto s = make_state(device_type, std::move(shape), std::move(ranks), rv.rank);
  s->timeout = timeout;
  s->device_index = rv.device_index;
  detail::ignore_sigpipe_once();
  detail::catch_transport_failures_once();
  s->groups = make_groups(*s, rv.store, rv.gloo_hostname);
  // Gloo connects pairs lazily on one side: without a barrier a fast rank
  // could finish and exit while a slow peer is still connecting to it.
  // (NCCL connects in its first collective; its barrier would also have to
  // guess a GPU.)
  for (const auto& group : s->groups) {
    if (device_type != "cuda" && group->getSize() > 1) {
      compat::barrier(group, timeout);
    }
  }
  return DeviceMesh(std::shared_ptr<const detail::MeshState>(std::move(s)));
}

} // namespace meshguard
