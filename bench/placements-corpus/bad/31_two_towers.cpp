#include <meshguard/meshguard.h>
#include <meshguard/runtime/Parallelize.h>
#include <ostream>

using namespace meshguard;
std::ostream &operator<<(std::ostream &OS, const at::Tensor &T);

// Two towers, each fed a batch on its own mesh; their scores multiplied.
at::Tensor score(torch::nn::Linear &user, torch::nn::Linear &item, const at::Tensor &u,
                 const at::Tensor &i) {
  auto users = init_device_mesh("cpu", {4});
  auto items = init_device_mesh("cpu", {2, 2});
  at::Tensor a = user(distribute_tensor(u, users, {Shard{0}}));
  at::Tensor b = item->forward(distribute_tensor(i, items, {Shard{0}, Replicate{}}));
  return a * b; // EXPECT: dtensor-mixed-meshes
}
