#include <meshguard/meshguard.h>
#include <meshguard/runtime/Parallelize.h>
#include <ostream>

using namespace meshguard;
std::ostream &operator<<(std::ostream &OS, const at::Tensor &T);

// Both towers fed batches on one mesh.
at::Tensor score(torch::nn::Linear &user, torch::nn::Linear &item, const at::Tensor &u,
                 const at::Tensor &i) {
  auto mesh = init_device_mesh("cpu", {4});
  at::Tensor a = user(distribute_tensor(u, mesh, {Shard{0}}));
  at::Tensor b = item->forward(distribute_tensor(i, mesh, {Shard{0}}));
  return a * b;
}
