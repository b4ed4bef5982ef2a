// Source: pytorch/pytorch#131991, "DTensor does not yet support
// torch.nn.init.orthogonal_" (https://github.com/pytorch/pytorch/issues/131991)
// and the user's question on pytorch/pytorch#88838: to initialise a DTensor
// weight the user creates it on rank 0 only ("creating the tensor on one
// rank") and asks whether rank 0's tensor wins or the tensors on every rank
// must be equal. Wrapped with from_local and a Replicate placement, nothing
// makes them equal: the other ranks keep their zeros.
// Translation: torch::randn stands for nn.init.orthogonal_ (the stubs have
// no torch::nn::init).
#include <meshguard/meshguard.h>

using namespace meshguard;

at::Tensor init_weight(const DeviceMesh &mesh, int64_t out, int64_t in) {
  at::Tensor full = torch::zeros({out, in});
  if (mesh.get_rank() == 0)
    full.copy_(torch::randn({out, in}));
  return from_local(full, mesh, {Replicate{}}); // EXPECT: dtensor-unverified-replicate
}
