#include <meshguard/meshguard.h>
#include <ostream>
#include <utility>

using namespace meshguard;
std::ostream &operator<<(std::ostream &OS, const at::Tensor &T);

// examples/train.cpp's old shape. Each rank's rows, from a helper through
// a structured binding, called Replicate (a known miss until issue #44:
// the rank analysis is now asked about the call the binding unpacks).
std::pair<at::Tensor, at::Tensor> shard_of(const at::Tensor &x, const at::Tensor &y,
                                           int64_t rank) {
  return {x * rank, y * rank};
}

at::Tensor inputs(const DeviceMesh &mesh, const at::Tensor &x, const at::Tensor &y) {
  auto [x_local, y_local] = shard_of(x, y, mesh.get_rank());
  return from_local(x_local, mesh, {Replicate{}}); // EXPECT: dtensor-unverified-replicate
}
