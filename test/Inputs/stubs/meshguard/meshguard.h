// Stub of the meshguard runtime API (include/meshguard/meshguard.h) for the
// check tests: the same names and signatures, no implementation. Checked
// against the real headers by scripts/check-stubs.py (test/tools/stubs.test).
#pragma once
#include <memory>
#include <meshguard/runtime/Checkpoint.h>
#include <optional>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/torch.h>
#include <variant>
#include <vector>

namespace meshguard {
class DeviceMesh {
public:
  DeviceMesh(std::string DeviceType, std::vector<int64_t> Mesh);
  int64_t size(int64_t MeshDim = 0) const;
  int64_t get_rank() const;
  const std::vector<int64_t> &coordinate() const;
  int64_t get_local_rank(int64_t Dim) const;
  const c10::intrusive_ptr<c10d::ProcessGroup> &get_group(int64_t Dim) const;
};
DeviceMesh init_device_mesh(const std::string &device_type,
                            std::vector<int64_t> shape);
struct Shard {
  int64_t dim;
};
struct Replicate {};
enum class ReduceOp { SUM, AVG, PRODUCT, MIN, MAX };
struct Partial {
  ReduceOp reduce_op = ReduceOp::SUM;
};
using Placement = std::variant<Shard, Replicate, Partial>;
using Placements = std::vector<Placement>;

at::Tensor distribute_tensor(const at::Tensor &Tensor, const DeviceMesh &Mesh,
                             const Placements &P);
at::Tensor from_local(const at::Tensor &Local, const DeviceMesh &Mesh,
                      const Placements &P,
                      bool run_check = false);
at::Tensor to_local(const at::Tensor &Tensor,
                    const char *file = __builtin_FILE(),
                    int line = __builtin_LINE());
at::Tensor full_tensor(const at::Tensor &Tensor,
                       const char *file = __builtin_FILE(),
                       int line = __builtin_LINE());
at::Tensor redistribute(const at::Tensor &Tensor,
                        const Placements &P);
bool is_dtensor(const at::Tensor &Tensor);
std::optional<DeviceMesh> mesh_of(const at::Tensor &Tensor);
void distribute_module(torch::nn::Module &Module, const DeviceMesh &Mesh);
void check_replicas(const at::Tensor &Local, const DeviceMesh &Mesh,
                    const std::string &What);

class CollectiveGuard {
public:
  explicit CollectiveGuard(DeviceMesh Mesh);
  const DeviceMesh &mesh() const;
  std::vector<at::Tensor> sanitize_args(const std::vector<at::Tensor> &Args) const;
  void broadcast_(const std::vector<at::Tensor> &tensors, int64_t src,
                  int64_t mesh_dim = 0) const;
};

namespace dist {
void broadcast_(const std::vector<at::Tensor> &tensors, int64_t src,
                int64_t mesh_dim = 0);
void all_reduce_(const std::vector<at::Tensor> &tensors,
                 ReduceOp op = ReduceOp::SUM, int64_t mesh_dim = 0);
std::vector<at::Tensor> all_gather(const std::vector<at::Tensor> &tensors,
                                   int64_t mesh_dim = 0);
std::vector<at::Tensor> reduce_scatter(const std::vector<at::Tensor> &tensors,
                                       ReduceOp op = ReduceOp::SUM,
                                       int64_t scatter_dim = 0,
                                       int64_t mesh_dim = 0);
} // namespace dist

namespace guarded {
void broadcast_(const std::vector<at::Tensor> &tensors, const DeviceMesh &mesh,
                int64_t src, int64_t mesh_dim = 0);
void all_reduce_(const std::vector<at::Tensor> &tensors, const DeviceMesh &mesh,
                 ReduceOp op = ReduceOp::SUM, int64_t mesh_dim = 0);
std::vector<at::Tensor> all_gather(const std::vector<at::Tensor> &tensors,
                                   const DeviceMesh &mesh,
                                   int64_t mesh_dim = 0);
std::vector<at::Tensor> reduce_scatter(const std::vector<at::Tensor> &tensors,
                                       const DeviceMesh &mesh,
                                       ReduceOp op = ReduceOp::SUM,
                                       int64_t scatter_dim = 0,
                                       int64_t mesh_dim = 0);
} // namespace guarded
} // namespace meshguard
