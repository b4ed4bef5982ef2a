// Source: pytorch/pytorch#105840, "[FSDP] FSDP doesn't work (random accuracy
// performance) when using `param_init_fn` and `sync_module_states=True`"
// (https://github.com/pytorch/pytorch/issues/105840). To save host memory the
// user loaded the pretrained weights on rank 0 only; the other ranks built
// the model empty and initialised it (param_init_fn), counting on the
// weights being synchronised from rank 0. They were not: the metrics were
// random while the loss still moved, nothing failed.
// Translation: rank 0 copies the checkpoint's weight, the other ranks keep
// their own initialisation, and the weight is declared replicated.
#include <meshguard/meshguard.h>

using namespace meshguard;

at::Tensor load_weight(const DeviceMesh &mesh, const at::Tensor &checkpoint) {
  at::Tensor weight = torch::randn({4, 4});
  if (mesh.get_rank() == 0)
    weight.copy_(checkpoint);
  return from_local(weight, mesh, {Replicate{}}); // EXPECT: dtensor-unverified-replicate
}
