#include <meshguard/meshguard.h>
#include <ostream>

using namespace meshguard;
std::ostream &operator<<(std::ostream &OS, const at::Tensor &T);

#include <cstdlib>
// A seed offset from the launcher's RANK, wrapped as a replicated tensor.
at::Tensor seed_tensor(const DeviceMesh &mesh) {
  int64_t rank = std::atoll(std::getenv("RANK"));
  at::Tensor seed = torch::full({1}, static_cast<double>(rank));
  return from_local(seed, mesh, {Replicate{}}); // EXPECT: dtensor-unverified-replicate
}
