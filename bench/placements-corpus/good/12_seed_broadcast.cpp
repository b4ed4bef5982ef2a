#include <meshguard/meshguard.h>
#include <ostream>

using namespace meshguard;
std::ostream &operator<<(std::ostream &OS, const at::Tensor &T);

#include <cstdlib>
// The seed is broadcast from rank 0 first: then every rank holds the same.
at::Tensor seed_tensor(const DeviceMesh &mesh) {
  int64_t rank = std::atoll(std::getenv("RANK"));
  at::Tensor seed = torch::full({1}, static_cast<double>(rank));
  guarded::broadcast_({seed}, mesh, 0);
  return from_local(seed, mesh, {Replicate{}});
}
