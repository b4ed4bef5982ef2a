// Source: pytorch/pytorch#144054, "item() on DTensor only grabs the local
// tensor" (https://github.com/pytorch/pytorch/issues/144054).
// The user sharded a tensor of ones row-wise (DTensor.from_local with
// [Shard(0)]) and printed rowwise_tensor.norm().item(): expected 8 (the norm
// of the whole 8x8 tensor), got the norm of this rank's half, 4*sqrt(2). The
// norm of a Shard(0) DTensor is Partial and item() read the local value.
// Translation: PyTorch's item() then was to_local().item() (meshguard's
// item() reduces first, so the local read is spelled out); norm() is the
// square root of the sum of squares (the stub headers have no norm()).
#include <cmath>
#include <meshguard/meshguard.h>

using namespace meshguard;

double rowwise_norm(const DeviceMesh &mesh, const at::Tensor &local_rows) {
  at::Tensor rowwise = from_local(local_rows, mesh, {Shard{0}});
  at::Tensor squares = rowwise.pow(2).sum();
  return std::sqrt(to_local(squares).item<double>()); // EXPECT: dtensor-partial-local-use
}
