#include <meshguard/meshguard.h>
#include <ostream>

using namespace meshguard;
std::ostream &operator<<(std::ostream &OS, const at::Tensor &T);

// Each rank's slice of the batch, by its mesh coordinate, called Replicate
// on a 2-D mesh.
at::Tensor batch_slice(const DeviceMesh &mesh2d, const at::Tensor &batch) {
  int64_t row = mesh2d.coordinate()[0];
  at::Tensor mine = batch * row;
  return from_local(mine, mesh2d, {Replicate{}, Replicate{}}, false); // EXPECT: dtensor-unverified-replicate
}
