// Library code of the same user, for the fix-it round trip
// (test/fixits/round-trip.test): compiled, not run. The other forms the
// fix-its take: the mesh as a smart-pointer field, as a pointer parameter,
// a call spread over lines with a comment, the value-returning collectives,
// a DTensor in the vector handed to a raw ProcessGroup::broadcast, and mixed ops written as
// methods, as at:: functions and with an expression operand.

#include <memory>
#include <utility>
#include <vector>

#include <meshguard/meshguard.h>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/torch.h>

class GradientSync {
 public:
  explicit GradientSync(std::shared_ptr<meshguard::DeviceMesh> mesh) : mesh_(std::move(mesh)) {}

  // Every rank's step count.
  std::vector<at::Tensor> gather_steps(int64_t steps) const {
    at::Tensor mine = torch::full({1}, steps, torch::kLong);
    return meshguard::dist::all_gather({mine});
  }

  // The buckets summed over the ranks; this rank keeps its slice.
  at::Tensor reduce_buckets(int64_t numel) const {
    at::Tensor buckets = torch::ones({numel * mesh_->size()});
    auto slices = meshguard::dist::reduce_scatter({buckets}, meshguard::ReduceOp::SUM, /*scatter_dim=*/0);
    return slices.front();
  }

 private:
  std::shared_ptr<meshguard::DeviceMesh> mesh_;
};

// The loss averaged over the ranks.
double average_loss(const meshguard::DeviceMesh *mesh, double loss) {
  at::Tensor t = torch::tensor({loss});
  meshguard::dist::all_reduce_(
      {t},  // one element
      meshguard::ReduceOp::AVG);
  return t.item<double>();
}

// Rank 0's weight, through the raw process group.
void broadcast_weight(const meshguard::DeviceMesh &mesh, const at::Tensor &weight) {
  at::Tensor w = meshguard::redistribute(weight, {meshguard::Replicate{}});
  std::vector<at::Tensor> tensors{w};
  mesh.get_group(0)->broadcast(tensors)->wait();
}

// A bias and a per-feature gain on a replicated activation.
at::Tensor apply_gain(const meshguard::DeviceMesh &mesh, const at::Tensor &x) {
  at::Tensor act = meshguard::from_local(x, mesh, {meshguard::Replicate{}});
  at::Tensor bias = torch::zeros({4});
  at::Tensor gain = torch::linspace(0.5, 1.5, 4);
  at::Tensor y = at::mul(act.add(bias), gain);
  return y - torch::ones({4});
}
